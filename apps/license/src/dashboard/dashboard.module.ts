import type pg from 'pg';
import type { Guard } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { FeatureModule } from '../common/feature-module.js';
import type { licensesService } from '../licenses/licenses.service.js';
import type { LicenseSettings } from '../runtime-config/runtime-config.schema.js';
import { dashboardAssets, dashboardRoutes } from './dashboard.routes.js';
import { dashboardService } from './dashboard.service.js';

/** The web page at `/` and its assets (no panic guard: admins must reach it in panic mode). */
export function dashboardModule(needs: {
  pool: pg.Pool; settings: SettingsStore<LicenseSettings>; now: () => Date; licenses: ReturnType<typeof licensesService>; public: Guard; admin: Guard;
}): FeatureModule {
  const service = dashboardService({ pool: needs.pool, settings: needs.settings, now: needs.now, licenses: needs.licenses });
  return { name: 'dashboard', routes: dashboardRoutes({ service, public: needs.public, admin: needs.admin }), routers: [dashboardAssets] };
}
