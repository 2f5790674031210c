import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { customerRoutes } from './customers.routes.js';
import type { customersService } from './customers.service.js';

/** The service is the app's: the customer guard reads it too. */
export function customersModule(needs: { service: ReturnType<typeof customersService>; admin: Guard }): FeatureModule {
  return { name: 'customers', routes: customerRoutes(needs) };
}
