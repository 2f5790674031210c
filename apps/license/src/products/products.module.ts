import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import { productPages } from './products.pages.js';
import { productRoutes } from './products.routes.js';
import type { ProductsService } from './products.service.js';

/** The products API and the admin console's product pages (`csrfToken`: the session's, for the pages' forms). */
export function productsModule(needs: {
  pool: pg.Pool;
  service: ProductsService;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  const { service } = needs;
  return {
    name: 'products',
    routes: [
      ...productRoutes({ service, admin: needs.admin }),
      ...productPages({
        service,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        auditFailure: (req, target, error) => recordFailedWrite(needs.pool, req, target, error),
      }),
    ],
  };
}
