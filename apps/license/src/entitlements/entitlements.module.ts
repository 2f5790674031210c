import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { entitlementRoutes } from './entitlements.routes.js';
import { createEntitlementsService } from './entitlements.service.js';

/** The entitlements API and the admin console's entitlement pages. */
export function entitlementsModule(needs: { pool: pg.Pool; admin: Guard }): FeatureModule {
  const service = createEntitlementsService(needs);
  return { name: 'entitlements', routes: entitlementRoutes({ service, admin: needs.admin }) };
}
