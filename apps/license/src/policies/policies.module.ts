import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import type { EntitlementsService } from '../entitlements/entitlements.service.js';
import type { ProductsService } from '../products/products.service.js';
import { policyPages } from './policies.pages.js';
import { policyRoutes } from './policies.routes.js';
import type { PoliciesService } from './policies.service.js';

/** The policies API and the admin console's policy pages. */
export function policiesModule(needs: {
  pool: pg.Pool;
  service: PoliciesService;
  products: ProductsService;
  entitlements: EntitlementsService;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  const { service, products, entitlements } = needs;
  // The forms choose from every product and entitlement (read through their features' services).
  const options = async () => {
    const [productList, { entitlements: codes }] = await Promise.all([
      products.list({ includeCounts: false, activeOnly: false }),
      entitlements.search(),
    ]);
    return {
      products: productList.map((product) => ({ id: product._id, name: product.name })),
      entitlements: codes.map((item) => ({ code: item.code, name: item.name })),
    };
  };
  return {
    name: 'policies',
    routes: [
      ...policyRoutes({ service, admin: needs.admin }),
      ...policyPages({
        service,
        options,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        auditFailure: (req, target, error) => recordFailedWrite(needs.pool, req, target, error),
      }),
    ],
  };
}
