import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { auditRoutes } from './audit.routes.js';
import { createAuditService } from './audit.service.js';

export function auditModule(needs: { pool: pg.Pool; admin: Guard }): FeatureModule {
  return { name: 'audit', routes: auditRoutes({ service: createAuditService({ pool: needs.pool }), admin: needs.admin }) };
}
