import type { Queryable } from '@app/db';
import type { FeatureModule, Guard } from '@app/http';
import type { createLicensesService } from '../licenses/licenses.service.js';
import type { createProductsService } from '../products/products.service.js';
import { analyticsRoutes } from './analytics.routes.js';
import { createAnalyticsService } from './analytics.service.js';

/** Validation analytics (wave 4, insight): the daily rollups through the admin API. */
export function analyticsModule(needs: {
  /** Where the rollups are read: the replica when there is one. */
  reads: Queryable;
  now: () => Date;
  licenses: Pick<ReturnType<typeof createLicensesService>, 'find'>;
  products: Pick<ReturnType<typeof createProductsService>, 'get'>;
  admin: Guard;
}) {
  const service = createAnalyticsService({
    reads: needs.reads,
    now: needs.now,
    product: (id) => needs.products.get(id, false),
    license: (id) => needs.licenses.find({ licenseId: id }),
  });
  const module: FeatureModule = {
    name: 'analytics',
    routes: analyticsRoutes({ service, admin: needs.admin, now: needs.now }),
  };
  return { ...module, service };
}
