import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import { customerPages } from './customers.pages.js';
import { customerRoutes } from './customers.routes.js';
import type { createCustomersService } from './customers.service.js';

/**
 * The customers API and the admin console's customer pages. The service is the app's: the
 * customer guard reads it too. `csrfToken`: the session's, for the pages' forms.
 */
export function customersModule(needs: {
  pool: pg.Pool;
  service: ReturnType<typeof createCustomersService>;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  return {
    name: 'customers',
    routes: [
      ...customerRoutes({ service: needs.service, admin: needs.admin }),
      ...customerPages({
        service: needs.service,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        auditFailure: (req, target, error) => recordFailedWrite(needs.pool, req, target, error),
      }),
    ],
  };
}
