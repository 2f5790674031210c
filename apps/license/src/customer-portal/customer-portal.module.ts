import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { customerPortalRoutes } from './customer-portal.routes.js';
import { customerPortalService } from './customer-portal.service.js';

export function customerPortalModule(needs: { pool: pg.Pool; now: () => Date; customer: Guard; panicGuard: RequestHandler }): FeatureModule {
  const service = customerPortalService({ pool: needs.pool, now: needs.now });
  return { name: 'customer-portal', routes: customerPortalRoutes({ service, customer: needs.customer, panicGuard: needs.panicGuard }) };
}
