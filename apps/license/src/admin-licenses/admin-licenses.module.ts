import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import { createCustomersService } from '../customers/customers.service.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import type { MachinesService } from '../licenses/machines.service.js';
import { createProductsService } from '../products/products.service.js';
import { createPoliciesService } from '../policies/policies.service.js';
import { createEntitlementsService } from '../entitlements/entitlements.service.js';
import { adminLicensesPages } from './admin-licenses.pages.js';
import { adminLicensesService } from './admin-licenses.service.js';

/** The admin console's license pages (no panic guard: admins work in panic mode too). */
export function adminLicensesModule(needs: {
  pool: pg.Pool;
  now: () => Date;
  licenses: LicensesService;
  machines: MachinesService;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  // Products and customers are read through their features' services (stateless, so built here).
  const service = adminLicensesService({
    pool: needs.pool,
    now: needs.now,
    licenses: needs.licenses,
    machines: needs.machines,
    products: createProductsService({ pool: needs.pool, now: needs.now }),
    customers: createCustomersService({ pool: needs.pool }),
    policies: createPoliciesService({ pool: needs.pool }),
    entitlements: createEntitlementsService({ pool: needs.pool }),
  });
  return {
    name: 'admin-licenses',
    routes: adminLicensesPages({
      pool: needs.pool,
      service,
      licenses: needs.licenses,
      machines: needs.machines,
      adminPage: needs.adminPage,
      csrfToken: needs.csrfToken,
    }),
  };
}
