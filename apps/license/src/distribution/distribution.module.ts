import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import type { JobQueue } from '@app/events';
import type { FeatureModule, Guard, Logger } from '@app/http';
import {
  createObjectStore,
  FileObjectStore,
  fileStoreHandler,
  storageSettingsOf,
  type ObjectStore,
} from '@app/storage';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { EventBus } from '../events/event-bus.js';
import { signedSender } from '../signing/signed-answers.js';
import type { ResponseSigner } from '../signing/signing.js';
import { licenseValidator } from '../validation/validation.module.js';
import { downloadLinks } from './download-links.js';
import { releasePages } from './releases.pages.js';
import { releaseRoutes } from './releases.routes.js';
import { createReleasesService } from './releases.service.js';
import { updateRoutes } from './updates.routes.js';

/** Where the filesystem store's URLs are served (its PUT and GET), below the service's public URL. */
export const FILE_STORE_PATH = '/files';

export const OBJECT_REMOVAL_JOB = 'release-objects-removal';
/** Every minute: objects of artifacts deleted while the store was down, or with their product. */
export const OBJECT_REMOVAL_CRON = '* * * * *';
export const ORPHAN_SWEEP_JOB = 'release-objects-sweep';
/** Hourly, at minute 37: the store compared with the artifacts. */
export const ORPHAN_SWEEP_CRON = '37 * * * *';

/** The object store of the config (STORAGE_URL; the filesystem under DATA_DIR/objects by default). */
export function objectStoreOf(config: Config, publicUrl: string, secret: string): ObjectStore {
  return createObjectStore(storageSettingsOf(config), {
    publicUrl: `${publicUrl.replace(/\/+$/, '')}${FILE_STORE_PATH}`,
    signingSecret: `${secret}:object-store`,
  });
}

/**
 * Software releases (decisions.md, wave 4, "releases and update feeds"): the admin API
 * (`distribution`), and what applications call before the session (`distribution-hot`): the
 * signed upgrade question, Tauri's feed, download links, and the filesystem store's own URLs.
 * With a job queue (which runs each once across instances), the admin module removes the objects
 * of deleted artifacts the deletion could not (store down, product deleted) and sweeps orphans.
 */
export function distributionModules(needs: {
  pool: pg.Pool;
  now: () => Date;
  events: EventBus;
  store: ObjectStore;
  publicUrl: string;
  secret: string;
  signer: ResponseSigner;
  logger: Logger;
  queue: JobQueue | undefined;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  product: (productId: string) => Promise<{ _id: string; name: string }>;
  public: Guard;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
}) {
  const service = createReleasesService({
    pool: needs.pool,
    now: needs.now,
    store: needs.store,
    links: downloadLinks({ secret: needs.secret, publicUrl: needs.publicUrl, now: needs.now }),
    logger: needs.logger,
    productExists: needs.product,
  });
  const signed = signedSender({
    signer: needs.signer,
    now: needs.now,
    hwidField: 'fingerprint',
    logger: needs.logger,
    validFlag: false,
  });
  const hot: FeatureModule = {
    name: 'distribution-hot',
    stage: 'hotPath',
    routes: updateRoutes({
      service,
      validate: licenseValidator(needs),
      signed,
      public: needs.public,
      panicGuard: needs.panicGuard,
      limiter: needs.limiter,
    }),
    routers:
      needs.store instanceof FileObjectStore ? [{ path: FILE_STORE_PATH, handler: fileStoreHandler(needs.store) }] : [],
    errorHandlers: { path: '/api/license/releases/upgrade', handlers: signed.errors },
  };
  const admin: FeatureModule = {
    name: 'distribution',
    routes: [
      ...releaseRoutes({ service, admin: needs.admin }),
      ...releasePages({
        service,
        product: needs.product,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        auditFailure: (req, target, error) => recordFailedWrite(needs.pool, req, target, error),
      }),
    ],
    async jobs() {
      const { queue, logger } = needs;
      if (!queue) return;
      await queue.schedule(OBJECT_REMOVAL_JOB, OBJECT_REMOVAL_CRON, async () => {
        const removed = await service.removeQueuedObjects();
        if (removed > 0) logger.info({ removed }, 'removed objects of deleted artifacts');
      });
      await queue.schedule(ORPHAN_SWEEP_JOB, ORPHAN_SWEEP_CRON, async () => {
        const removed = await service.sweepOrphanObjects();
        if (removed > 0) logger.info({ removed }, 'removed objects without an artifact');
      });
      await queue.runNow(ORPHAN_SWEEP_JOB);
    },
  };
  return { service, hot, admin };
}
