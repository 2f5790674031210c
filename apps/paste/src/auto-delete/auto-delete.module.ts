import type { Logger } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { FeatureModule } from '../feature-module.js';
import type { PasteService } from '../pastes/paste.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { scheduleAutoDelete } from './auto-delete.job.js';

/** Deletes pastes nobody viewed for the configured number of days, and pastes past their time limit. */
export function autoDeleteModule(deps: {
  pastes: PasteService;
  settings: SettingsStore<PasteSettings>;
  logger: Logger;
}): FeatureModule {
  return { name: 'auto-delete', routes: [], jobs: [(queue) => scheduleAutoDelete({ queue, ...deps })] };
}
