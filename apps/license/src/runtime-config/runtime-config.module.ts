import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import { runtimeConfigRoutes } from './runtime-config.routes.js';
import type { RuntimeConfigService } from './runtime-config.service.js';

export function runtimeConfigModule(needs: { service: RuntimeConfigService; admin: Guard }): FeatureModule {
  return {
    name: 'runtime-config',
    routes: runtimeConfigRoutes({ service: needs.service, admin: needs.admin }),
  };
}
