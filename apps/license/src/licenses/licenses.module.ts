import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import { licenseRoutes } from './licenses.routes.js';
import type { createLicensesService } from './licenses.service.js';

/** The service is the app's: the dashboard and automated actions use it too. */
export function licensesModule(needs: {
  service: ReturnType<typeof createLicensesService>;
  admin: Guard;
}): FeatureModule {
  return { name: 'licenses', routes: licenseRoutes(needs) };
}
