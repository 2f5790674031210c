import type { FeatureModule, Logger } from '@app/http';
import type { JobQueue } from '@app/events';
import { FileObjectStore, fileStoreHandler } from '@app/storage';
import type { AttachmentService } from './attachments.service.js';

export const ATTACHMENT_CLEANUP_JOB = 'paste-attachments-cleanup';
/** Every minute: objects go within 15 minutes of their paste (10 of them the URLs' lifetime). */
export const ATTACHMENT_CLEANUP_CRON = '* * * * *';
export const ATTACHMENT_SWEEP_JOB = 'paste-attachments-sweep';
/** Hourly, at minute 23: the store compared with the table. */
export const ATTACHMENT_SWEEP_CRON = '23 * * * *';

/** Where the filesystem store's presigned URLs point (its handler is mounted here). */
export const FILE_STORE_PATH = '/objects';

/**
 * Attachments' bytes: the filesystem store's upload and download URLs (no session), and the jobs
 * that remove the objects of pastes that are gone and sweep the store for orphans (only with a
 * job queue, which runs each once across instances).
 */
export function attachmentsModule(deps: {
  service: AttachmentService;
  logger: Logger;
  queue: JobQueue | undefined;
}): FeatureModule {
  const { service, logger, queue } = deps;
  const store = service.store;
  return {
    name: 'attachments',
    stage: 'sessionless',
    routes: [],
    routers: store instanceof FileObjectStore ? [{ path: FILE_STORE_PATH, handler: fileStoreHandler(store) }] : [],
    async jobs() {
      if (!queue) return;
      await queue.schedule(ATTACHMENT_CLEANUP_JOB, ATTACHMENT_CLEANUP_CRON, async () => {
        const removed = await service.removeDue();
        if (removed > 0) logger.info({ removed }, 'removed attachments of pastes that are gone');
      });
      await queue.schedule(ATTACHMENT_SWEEP_JOB, ATTACHMENT_SWEEP_CRON, async () => {
        const removed = await service.sweepOrphans();
        if (removed > 0) logger.info({ removed }, 'removed objects without an attachment');
      });
      await queue.runNow(ATTACHMENT_SWEEP_JOB);
    },
  };
}
