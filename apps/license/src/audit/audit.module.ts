import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import { auditPages } from './audit.pages.js';
import { auditRoutes } from './audit.routes.js';
import { createAuditService } from './audit.service.js';

/** The audit API and the admin console's audit log pages. */
export function auditModule(needs: { pool: pg.Pool; admin: Guard; adminPage: Guard }): FeatureModule {
  const service = createAuditService({ pool: needs.pool });
  return {
    name: 'audit',
    routes: [...auditRoutes({ service, admin: needs.admin }), ...auditPages({ service, adminPage: needs.adminPage })],
  };
}
