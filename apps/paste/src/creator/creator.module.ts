import type { FeatureModule } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import type { PasteService } from '../pastes/pastes.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { creatorRoutes } from './creator.routes.js';
import type { OwnerCheck } from './delete-access.js';

/** What the creator of a paste uses: the created page, the delete page, deleting. */
export function creatorModule(deps: {
  service: PasteService;
  settings: SettingsStore<PasteSettings>;
  guards: PasteGuards;
  isOwner: OwnerCheck;
  now: () => Date;
}): FeatureModule {
  return { name: 'creator', routes: creatorRoutes(deps) };
}
