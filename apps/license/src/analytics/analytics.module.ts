import type { Queryable } from '@app/db';
import type { FeatureModule, Guard, Logger } from '@app/http';
import type { createLicensesService } from '../licenses/licenses.service.js';
import type { createProductsService } from '../products/products.service.js';
import { analyticsRoutes } from './analytics.routes.js';
import { createAnalyticsService } from './analytics.service.js';

/** How often flags of key sharing are looked for and announced (LICENSE_SHARING_SUSPECTED). */
export const sharingAnnounceEveryMs = 10_000;
/** How often queued validations are folded into the rollups (a read folds what is left first). */
export const usageFoldEveryMs = 1_000;
/** How often usage retention runs (partitions made ahead, expired ones dropped). */
export const usageMaintenanceEveryMs = 3_600_000;

/**
 * Validation analytics (wave 4, insight): the daily rollups through the admin API, the fold that
 * keeps them (validations queue their records; every instance folds each second, one at a time),
 * and the announcement of licenses flagged for key sharing. The announcement claims each flag in
 * the database, so it may run on every instance at once.
 */
export function analyticsModule(needs: {
  /** Where the rollups are read: the replica when there is one. */
  reads: Queryable;
  db: Queryable;
  /** The embedded database prunes rows exactly; PostgreSQL drops whole months. */
  mode: 'server' | 'embedded';
  retentionDays: number;
  now: () => Date;
  licenses: Pick<ReturnType<typeof createLicensesService>, 'find' | 'announceSharingSuspicions'>;
  products: Pick<ReturnType<typeof createProductsService>, 'get'>;
  admin: Guard;
  logger: Pick<Logger, 'error'>;
  /** Runs the announcements only in a real start (with a job queue); tests call them themselves. */
  background: boolean;
}) {
  const service = createAnalyticsService({
    reads: needs.reads,
    db: needs.db,
    now: needs.now,
    retentionDays: needs.retentionDays,
    exactRetention: needs.mode === 'embedded',
    product: (id) => needs.products.get(id, false),
    license: (id) => needs.licenses.find({ licenseId: id }),
  });
  let timer: NodeJS.Timeout | undefined;
  let maintenance: NodeJS.Timeout | undefined;
  let folder: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let maintaining: Promise<unknown> = Promise.resolve();
  let folding: Promise<unknown> | undefined;
  const foldOnce = () => {
    // One at a time per instance: a slow fold is not stacked on.
    folding ??= service
      .foldUsage()
      .catch((error: unknown) => needs.logger.error({ err: error }, 'usage rollup fold failed'))
      .finally(() => {
        folding = undefined;
      });
  };
  const maintainOnce = () => {
    maintaining = service
      .maintainUsage()
      .catch((error: unknown) => needs.logger.error({ err: error }, 'usage retention failed'));
  };
  const announceOnce = () => {
    running = needs.licenses
      .announceSharingSuspicions()
      .catch((error: unknown) => needs.logger.error({ err: error }, 'sharing announcement failed'));
  };
  const module: FeatureModule = {
    name: 'analytics',
    routes: analyticsRoutes({ service, admin: needs.admin, now: needs.now }),
    jobs: () => {
      if (needs.background) {
        announceOnce();
        timer = setInterval(announceOnce, sharingAnnounceEveryMs);
        timer.unref();
        maintainOnce();
        maintenance = setInterval(maintainOnce, usageMaintenanceEveryMs);
        maintenance.unref();
        folder = setInterval(foldOnce, usageFoldEveryMs);
        folder.unref();
      }
      return Promise.resolve();
    },
    close: async () => {
      if (timer) clearInterval(timer);
      if (maintenance) clearInterval(maintenance);
      if (folder) clearInterval(folder);
      await Promise.all([running, maintaining, folding]);
    },
  };
  return { ...module, service };
}
