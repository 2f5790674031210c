import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import { entitlementPages } from './entitlements.pages.js';
import { entitlementRoutes } from './entitlements.routes.js';
import type { EntitlementsService } from './entitlements.service.js';

/** The entitlements API and the admin console's entitlement pages. */
export function entitlementsModule(needs: {
  pool: pg.Pool;
  service: EntitlementsService;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  const { service } = needs;
  return {
    name: 'entitlements',
    routes: [
      ...entitlementRoutes({ service, admin: needs.admin }),
      ...entitlementPages({
        service,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        auditFailure: (req, target, error) => recordFailedWrite(needs.pool, req, target, error),
      }),
    ],
  };
}
