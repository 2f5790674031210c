import type { Queryable } from '@app/db';
import type { Response } from 'express';
import type { Guard } from '@app/http';
import type { CustomerRecord } from '../common/request.js';
import type { SettingsStore } from '@app/settings';
import type { FeatureModule } from '@app/http';
import type { createLicensesService } from '../licenses/licenses.service.js';
import type { LicenseSettings } from '../runtime-config/runtime-config.schema.js';
import { dashboardAssets, dashboardRoutes } from './dashboard.routes.js';
import type { DashboardReads } from './dashboard-counts.js';
import { createDashboardService } from './dashboard.service.js';
import type { AnalyticsService } from '../analytics/analytics.service.js';

/** The web page at `/` and its assets (no panic guard: admins must reach it in panic mode). */
export function dashboardModule(needs: {
  /** Where the counts are read: the replica when there is one (database.reads). */
  reads: Queryable;
  figures: DashboardReads;
  settings: SettingsStore<LicenseSettings>;
  now: () => Date;
  licenses: ReturnType<typeof createLicensesService>;
  analytics: Pick<AnalyticsService, 'validations' | 'top'>;
  public: Guard;
  admin: Guard;
  /** Renders a signed-in customer's front page (the customer portal's). */
  customerHome: (res: Response, username: string, customer: CustomerRecord) => Promise<void>;
  isAdmin: (userId: string) => Promise<boolean>;
  findCustomer: (userId: string) => Promise<CustomerRecord | undefined>;
}): FeatureModule {
  const service = createDashboardService({
    reads: needs.reads,
    figures: needs.figures,
    settings: needs.settings,
    now: needs.now,
    licenses: needs.licenses,
    analytics: needs.analytics,
    isAdmin: needs.isAdmin,
    findCustomer: needs.findCustomer,
  });
  return {
    name: 'dashboard',
    routes: dashboardRoutes({ service, public: needs.public, admin: needs.admin, customerHome: needs.customerHome }),
    routers: [dashboardAssets],
  };
}
