import type pg from 'pg';
import type { Config } from '@app/config';
import type { JobQueue, Notifier } from '@app/events';
import type { Logger } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import type { createLicensesService } from '../licenses/licenses.service.js';
import { createJobsService, scheduleJobs } from './jobs.service.js';

/** The scheduled scans (expiry, trial conversion, warnings, anomalies); only with a job queue, which runs each once across instances. */
export function jobsModule(needs: {
  config: Config;
  pool: pg.Pool;
  now: () => Date;
  events: EventBus;
  licenses: ReturnType<typeof createLicensesService>;
  notifier: Pick<Notifier, 'notify'>;
  logger: Logger;
  queue?: JobQueue;
}): FeatureModule {
  const { config, queue, logger } = needs;
  const jobs = createJobsService({
    pool: needs.pool,
    now: needs.now,
    bus: needs.events,
    licenses: needs.licenses,
    notifier: needs.notifier,
    logger,
    settings: {
      expiryWarningDays: config.EXPIRY_WARNING_DAYS,
      anomalyMaxIps: config.ANOMALY_MAX_IPS,
      anomalyWindowMinutes: config.ANOMALY_WINDOW_MINUTES,
      anomalyMaxFailures: config.ANOMALY_MAX_FAILURES,
    },
  });
  return {
    name: 'jobs',
    routes: [],
    jobs: async () => {
      if (queue) await scheduleJobs(queue, jobs, logger);
    },
  };
}
