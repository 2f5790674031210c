import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import type { LicenseFiles } from '../licenses/license-file.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import { customerPortalRoutes } from './customer-portal.routes.js';
import { customerPortalService } from './customer-portal.service.js';

export function customerPortalModule(needs: {
  pool: pg.Pool; now: () => Date; customer: Guard; panicGuard: RequestHandler;
  licenses: LicensesService; files: LicenseFiles; releasesPerDay: number;
}): FeatureModule {
  const service = customerPortalService({
    pool: needs.pool, now: needs.now, licenses: needs.licenses, files: needs.files, releasesPerDay: needs.releasesPerDay,
  });
  return { name: 'customer-portal', routes: customerPortalRoutes({ service, customer: needs.customer, panicGuard: needs.panicGuard }) };
}
