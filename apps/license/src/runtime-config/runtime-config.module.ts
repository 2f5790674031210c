import type pg from 'pg';
import type { Guard } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { FeatureModule } from '@app/http';
import { runtimeConfigRoutes } from './runtime-config.routes.js';
import type { LicenseSettings } from './runtime-config.schema.js';
import { createRuntimeConfigService } from './runtime-config.service.js';

export function runtimeConfigModule(needs: {
  pool: pg.Pool;
  settings: SettingsStore<LicenseSettings>;
  admin: Guard;
  effectiveRateLimit: () => { enabled: boolean; windowMs: number; max: number };
}): FeatureModule {
  return {
    name: 'runtime-config',
    routes: runtimeConfigRoutes({ service: createRuntimeConfigService(needs), admin: needs.admin }),
  };
}
