import type { FeatureModule, Logger } from '@app/http';
import type { JobQueue } from '@app/events';
import type { SettingsStore } from '@app/settings';
import type { PasteService } from '../pastes/pastes.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { scheduleAutoDelete } from './auto-delete.job.js';

/**
 * Deletes pastes nobody viewed for the configured number of days, and pastes past their time
 * limit; only with a job queue, which runs each once across instances.
 */
export function autoDeleteModule(deps: {
  pastes: PasteService;
  settings: SettingsStore<PasteSettings>;
  logger: Logger;
  queue: JobQueue | undefined;
}): FeatureModule {
  const { queue, ...needs } = deps;
  let stop: (() => void) | undefined;
  return {
    name: 'auto-delete',
    routes: [],
    async jobs() {
      if (queue) stop = await scheduleAutoDelete({ queue, ...needs });
    },
    close() {
      stop?.();
      return Promise.resolve();
    },
  };
}
