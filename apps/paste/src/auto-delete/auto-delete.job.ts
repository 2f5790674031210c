import type { JobQueue } from '@app/events';
import type { Logger } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteService } from '../pastes/pastes.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';

export const AUTO_DELETE_JOB = 'paste-auto-delete-inactive';
/** Hourly, at minute 7 (not on the hour, when many other schedules fire). */
export const AUTO_DELETE_CRON = '7 * * * *';
export const DELETE_EXPIRED_JOB = 'paste-delete-expired';
/**
 * Every minute: a paste past its time limit answers 410 from that instant on, and its content
 * should not stay stored much longer than the creator asked for. The same job deletes the
 * per-address counts of wrong passwords whose window is over.
 */
export const DELETE_EXPIRED_CRON = '* * * * *';

/**
 * Deletes inactive pastes under the autoDeleteInactive setting, and pastes past their time
 * limit (a job of its own, every minute), as queue jobs: it runs at
 * start-up, hourly, and when the owner changes the setting, and once per run across every
 * instance (the queue hands each job to one worker).
 */
export async function scheduleAutoDelete(deps: {
  queue: JobQueue;
  pastes: PasteService;
  settings: SettingsStore<PasteSettings>;
  logger: Logger;
}): Promise<() => void> {
  const { queue, pastes, settings, logger } = deps;
  await queue.schedule(AUTO_DELETE_JOB, AUTO_DELETE_CRON, async () => {
    const deleted = await pastes.deleteInactive();
    if (deleted > 0) logger.info({ deleted, afterDays: settings.get().autoDeleteInactive }, 'deleted inactive pastes');
  });
  await queue.runNow(AUTO_DELETE_JOB);
  await queue.schedule(DELETE_EXPIRED_JOB, DELETE_EXPIRED_CRON, async () => {
    const deleted = await pastes.deleteExpired();
    if (deleted > 0) logger.info({ deleted }, 'deleted expired pastes');
    const abandoned = await pastes.deleteAbandoned();
    if (abandoned > 0) logger.info({ deleted: abandoned }, 'deleted pastes whose files never arrived');
    await pastes.forgetEndedAddressWindows();
  });
  await queue.runNow(DELETE_EXPIRED_JOB);
  return settings.onChange((next, previous) => {
    if (next.autoDeleteInactive !== previous.autoDeleteInactive && next.autoDeleteInactive !== 'never') {
      queue
        .runNow(AUTO_DELETE_JOB)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not queue the auto-delete run'));
    }
  });
}
