import type { FeatureModule } from '@app/http';
import type { PasteGuards } from '../access/guards.js';
import { moderationRoutes } from './moderation.routes.js';
import type { ModerationService } from './moderation.service.js';

/** The owner's list of pastes (the API; the dashboard's page is in pages/). */
export function moderationModule(deps: { service: ModerationService; guards: PasteGuards }): FeatureModule {
  return { name: 'moderation', routes: moderationRoutes(deps) };
}
