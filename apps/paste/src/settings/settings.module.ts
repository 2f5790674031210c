import type { SettingsStore } from '@app/settings';
import type { PasteGuards } from '../access/guards.js';
import type { FeatureModule } from '@app/http';
import { settingsRoutes } from './settings.routes.js';
import type { PasteSettings } from './settings.schema.js';

/** The owner's settings of the site. */
export function settingsModule(deps: { settings: SettingsStore<PasteSettings>; guards: PasteGuards }): FeatureModule {
  return { name: 'settings', routes: settingsRoutes(deps) };
}
