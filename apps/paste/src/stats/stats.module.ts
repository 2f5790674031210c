import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '@app/http';
import { statsRoutes } from './stats.routes.js';
import type { StatsService } from './stats.service.js';

/** The site's statistics, for the owner. */
export function statsModule(deps: { service: StatsService; guards: PasteGuards }): FeatureModule {
  return { name: 'stats', routes: statsRoutes(deps) };
}
