import type pg from 'pg';
import type { JobQueue, Notifier } from '@app/events';
import type { Logger } from '@app/http';
import type { Actor } from '../common/actor.js';
import type { EventBus } from '../events/event-bus.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import * as repo from './jobs.repository.js';

export interface JobsDeps {
  pool: pg.Pool;
  now: () => Date;
  bus: EventBus;
  /** Trial conversion and the expiry claims change licenses: through their service. */
  licenses: Pick<LicensesService, 'convertDueTrials' | 'claimExpired'>;
  notifier: Pick<Notifier, 'notify'>;
  logger: Pick<Logger, 'info' | 'error'>;
  settings: {
    expiryWarningDays: number;
    anomalyMaxIps: number;
    anomalyWindowMinutes: number;
    anomalyMaxFailures: number;
  };
}

const system: Actor = { userId: 'system', ip: null, userAgent: null };
const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** The scheduled scans. Each is idempotent: its claims live in the database, so a rerun announces nothing twice. */
export function createJobsService(deps: JobsDeps) {
  const { pool, now, bus, settings } = deps;

  async function convertTrials(): Promise<number> {
    return (await deps.licenses.convertDueTrials(system)).length;
  }

  /** Trials convert first, so a trial that becomes a full license is not announced as expired. */
  async function expiryScan(): Promise<number> {
    await convertTrials();
    let announced = 0;
    for (;;) {
      const expired = await deps.licenses.claimExpired(1000);
      for (const license of expired) {
        await bus.emit('LICENSE_EXPIRED', {
          licenseKey: license.key,
          expiresAt: iso(license.expires_at),
          customerId: license.customer_id,
          productId: license.product_id,
          licenseId: license.id,
        });
      }
      announced += expired.length;
      if (expired.length < 1000) return announced;
    }
  }

  async function expiryWarnings(): Promise<number> {
    if (settings.expiryWarningDays <= 0) return 0;
    const due = await repo.claimExpiryWarnings(pool, now(), settings.expiryWarningDays);
    for (const license of due) {
      await deps.notifier.notify('license_expiring', {
        subject: `License expiring: ${license.key}`,
        text: `License ${license.key} expires at ${iso(license.expires_at)}.`,
      });
    }
    return due.length;
  }

  async function anomalyScan(): Promise<number> {
    const windowMs = settings.anomalyWindowMinutes * 60_000;
    const at = now().getTime();
    const since = new Date(at - windowMs);
    // Reported once per window: the key carries the window's number.
    const bucket = Math.floor(at / windowMs);
    let reported = 0;
    for (const row of await repo.licensesWithManyIps(pool, since, settings.anomalyMaxIps)) {
      if (!(await repo.claimAnomalyReport(pool, `ips:${row.license_id}:${bucket}`))) continue;
      await bus.emit('ANOMALY_DETECTED', {
        kind: 'many_ips',
        licenseKey: row.key,
        licenseId: row.license_id,
        customerId: row.customer_id,
        productId: row.product_id,
        uniqueIps: row.unique_ips,
        threshold: settings.anomalyMaxIps,
        windowMinutes: settings.anomalyWindowMinutes,
      });
      reported += 1;
    }
    for (const row of await repo.ipsWithManyFailures(pool, since, settings.anomalyMaxFailures)) {
      if (!(await repo.claimAnomalyReport(pool, `failures:${row.ip}:${bucket}`))) continue;
      await bus.emit('ANOMALY_DETECTED', {
        kind: 'failed_validations',
        ip: row.ip,
        failedValidations: row.failures,
        licenses: row.licenses,
        threshold: settings.anomalyMaxFailures,
        windowMinutes: settings.anomalyWindowMinutes,
      });
      reported += 1;
    }
    return reported;
  }

  return { convertTrials, expiryScan, expiryWarnings, anomalyScan };
}
export type JobsService = ReturnType<typeof createJobsService>;

/** Cron schedules (UTC); each job also runs once at start-up. pg-boss runs each due time once across instances. */
export const jobSchedules = {
  'license-expiry-scan': '*/5 * * * *',
  'license-trial-conversion': '*/15 * * * *',
  'license-expiry-warnings': '0 * * * *',
  'license-anomaly-scan': '*/5 * * * *',
} as const;

export async function scheduleJobs(
  queue: Pick<JobQueue, 'schedule' | 'runNow'>,
  jobs: JobsService,
  logger: Pick<Logger, 'info'>,
): Promise<void> {
  const handlers: Record<keyof typeof jobSchedules, () => Promise<number>> = {
    'license-expiry-scan': jobs.expiryScan,
    'license-trial-conversion': jobs.convertTrials,
    'license-expiry-warnings': jobs.expiryWarnings,
    'license-anomaly-scan': jobs.anomalyScan,
  };
  for (const [name, cron] of Object.entries(jobSchedules) as Array<[keyof typeof jobSchedules, string]>) {
    await queue.schedule(name, cron, async () => {
      const count = await handlers[name]();
      if (count) logger.info({ job: name, count }, 'scheduled job done');
    });
    await queue.runNow(name);
  }
}
