import type { Queryable } from '@app/db';
import type { FeatureModule, Guard, Logger } from '@app/http';
import type { createLicensesService } from '../licenses/licenses.service.js';
import type { createProductsService } from '../products/products.service.js';
import { analyticsRoutes } from './analytics.routes.js';
import { createAnalyticsService } from './analytics.service.js';

/** How often flags of key sharing are looked for and announced (LICENSE_SHARING_SUSPECTED). */
export const sharingAnnounceEveryMs = 10_000;

/**
 * Validation analytics (wave 4, insight): the daily rollups through the admin API, and the
 * announcement of licenses flagged for key sharing. The announcement claims each flag in the
 * database, so it may run on every instance at once.
 */
export function analyticsModule(needs: {
  /** Where the rollups are read: the replica when there is one. */
  reads: Queryable;
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
    now: needs.now,
    product: (id) => needs.products.get(id, false),
    license: (id) => needs.licenses.find({ licenseId: id }),
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
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
      }
      return Promise.resolve();
    },
    close: async () => {
      if (timer) clearInterval(timer);
      await running;
    },
  };
  return { ...module, service };
}
