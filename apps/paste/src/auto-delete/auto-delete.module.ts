import type { FeatureModule, Logger } from '@app/http';
import type { JobQueue } from '@app/events';
import type { SettingsStore } from '@app/settings';
import type { PasteService } from '../pastes/pastes.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { scheduleAutoDelete } from './auto-delete.job.js';

/** Deletes pastes nobody viewed for the configured number of days, and pastes past their time limit. */
export function autoDeleteModule(deps: {
  pastes: PasteService;
  settings: SettingsStore<PasteSettings>;
  logger: Logger;
}): FeatureModule<JobQueue> {
  let stop: (() => void) | undefined;
  return {
    name: 'auto-delete',
    routes: [],
    async jobs(queue) {
      stop = await scheduleAutoDelete({ queue, ...deps });
    },
    close() {
      stop?.();
      return Promise.resolve();
    },
  };
}
