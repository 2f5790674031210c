import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { AuditService } from '../audit/audit.service.js';
import type { CustomersService } from '../customers/customers.service.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import type { MachinesService } from '../machines/machines.service.js';
import type { OfflineFilesService } from '../machines/offline-files.service.js';
import type { ProductsService } from '../products/products.service.js';
import type { PoliciesService } from '../policies/policies.service.js';
import type { EntitlementsService } from '../entitlements/entitlements.service.js';
import { adminLicensesPages } from './admin-licenses.pages.js';
import { adminLicensesService } from './admin-licenses.service.js';

/** The admin console's license pages (no panic guard: admins work in panic mode too). */
export function adminLicensesModule(needs: {
  pool: pg.Pool;
  now: () => Date;
  licenses: LicensesService;
  machines: MachinesService;
  offline: OfflineFilesService;
  products: ProductsService;
  customers: CustomersService;
  policies: PoliciesService;
  entitlements: EntitlementsService;
  audit: AuditService;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  // Products, customers, the catalogue and the audit trail are read through their features' services.
  const service = adminLicensesService({
    pool: needs.pool,
    now: needs.now,
    licenses: needs.licenses,
    machines: needs.machines,
    products: needs.products,
    customers: needs.customers,
    policies: needs.policies,
    entitlements: needs.entitlements,
    audit: needs.audit,
  });
  return {
    name: 'admin-licenses',
    routes: adminLicensesPages({
      pool: needs.pool,
      service,
      licenses: needs.licenses,
      machines: needs.machines,
      offline: needs.offline,
      adminPage: needs.adminPage,
      csrfToken: needs.csrfToken,
    }),
  };
}
