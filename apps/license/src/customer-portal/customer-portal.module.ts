import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { OfflineFilesService } from '../machines/offline-files.service.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import type { MachinesService } from '../machines/machines.service.js';
import { customerPortalPages, type CustomerPortalPages } from './customer-portal.pages.js';
import { customerPortalRoutes } from './customer-portal.routes.js';
import { createCustomerPortalService } from './customer-portal.service.js';

/** The customer API and the customer's pages; `home` renders a customer's front page for the dashboard route at `/`. */
export function customerPortalModule(needs: {
  pool: pg.Pool;
  now: () => Date;
  customer: Guard;
  panicGuard: RequestHandler;
  panicMode: () => boolean;
  licenses: LicensesService;
  machines: Pick<MachinesService, 'list'>;
  offline: OfflineFilesService;
  csrfToken: (req: Request) => string;
  releasesPerDay: number;
  downloads: Parameters<typeof customerPortalPages>[0]['downloads'];
}): FeatureModule & { home: CustomerPortalPages['home'] } {
  const service = createCustomerPortalService({
    pool: needs.pool,
    now: needs.now,
    licenses: needs.licenses,
    machines: needs.machines,
    offline: needs.offline,
    releasesPerDay: needs.releasesPerDay,
  });
  const pages = customerPortalPages({
    service,
    customer: needs.customer,
    panicMode: needs.panicMode,
    csrfToken: needs.csrfToken,
    downloads: needs.downloads,
  });
  return {
    name: 'customer-portal',
    routes: [
      ...customerPortalRoutes({
        service,
        customer: needs.customer,
        panicGuard: needs.panicGuard,
        machines: needs.machines,
      }),
      ...pages.routes,
    ],
    home: pages.home,
  };
}
