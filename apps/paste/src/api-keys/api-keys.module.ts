import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '@app/http';
import { apiKeyRoutes } from './api-keys.routes.js';
import type { ApiKeyService } from './api-keys.service.js';

/** The owner's API keys. */
export function apiKeysModule(deps: { service: ApiKeyService; guards: PasteGuards }): FeatureModule {
  return { name: 'api-keys', routes: apiKeyRoutes(deps) };
}
