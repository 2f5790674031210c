import type { Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import {
  dailyRollups,
  foldUsageRollups,
  maintainUsageRecords,
  topLicenses,
  topLicensesOfWindow,
  type DayRollup,
  type RollupScope,
} from '../usage/usage.service.js';
import { maxAnalyticsDays } from './analytics.schema.js';
import { createCsvEncoder } from '../exports/csv.js';

const DAY = 86_400_000;
const dateOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * The window of an analytics request: `to` defaults to today (UTC), `from` to 29 days before
 * `to` (the last 30 days); at most `maxAnalyticsDays` days.
 */
export function analyticsWindow(query: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const to = query.to ?? (query.from ? dateOf(Math.max(Date.parse(query.from), now.getTime())) : dateOf(now.getTime()));
  const from = query.from ?? dateOf(Date.parse(`${to}T00:00:00Z`) - 29 * DAY);
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY + 1;
  if (span > maxAnalyticsDays)
    throw appError('VALIDATION_FAILED', { details: { to: `at most ${maxAnalyticsDays} days from from` } });
  if (span < 1) throw appError('VALIDATION_FAILED', { details: { to: 'to must not be before from' } });
  return { from, to };
}

/** The analytics as CSV: a row a day, a column for each refusal text that occurs in the window. */
export function analyticsCsv(days: DayRollup[]): string {
  const errors = [...new Set(days.flatMap((day) => Object.keys(day.refused)))].sort();
  const encoder = createCsvEncoder<DayRollup>([
    { label: 'date', value: (day) => day.date },
    { label: 'ok', value: (day) => day.ok },
    { label: 'refused', value: (day) => Object.values(day.refused).reduce((sum, n) => sum + n, 0) },
    { label: 'machines', value: (day) => day.machines },
    { label: 'addresses', value: (day) => day.addresses },
    ...errors.map((error) => ({ label: `refused: ${error}`, value: (day: DayRollup) => day.refused[error] ?? 0 })),
  ]);
  return encoder.encode(days) || encoder.finish();
}

export function createAnalyticsService(deps: {
  /** Where the rollups are read: the replica when there is one. */
  reads: Queryable;
  /** The primary, where retention writes. */
  db: Queryable;
  now: () => Date;
  /** USAGE_RETENTION_DAYS; `exactRetention` on the embedded database (rows, not only whole months). */
  retentionDays: number;
  exactRetention: boolean;
  /** Throws the 404 of an unknown product (the products service's). */
  product: (id: string) => Promise<unknown>;
  /** The license of an id, or undefined (the licenses service's `find`). */
  license: (id: string) => Promise<{ id: string } | undefined>;
}) {
  /** Every validation committed before the request is in the answer: the queue is folded first. */
  const fold = () => foldUsageRollups(deps.db, deps.now(), true);
  const days = async (scope: RollupScope, query: { from?: string; to?: string }) => {
    const window = analyticsWindow(query, deps.now());
    await fold();
    return { ...window, days: await dailyRollups(deps.reads, scope, window) };
  };
  return {
    async validations(query: { productId?: string; from?: string; to?: string }) {
      if (query.productId) await deps.product(query.productId);
      return days({ productId: query.productId }, query);
    },
    async ofLicense(id: string, query: { from?: string; to?: string }) {
      const license = await deps.license(id);
      if (!license) throw appError('LICENSE_NOT_FOUND');
      return days({ licenseId: license.id }, query);
    },
    /** Usage retention: the coming months' partitions made, the expired ones dropped (hourly and at start). */
    maintainUsage: () => maintainUsageRecords(deps.db, deps.now(), deps.retentionDays, deps.exactRetention),
    /** The periodic fold (every instance, each second): skipped while another instance folds. */
    foldUsage: () => foldUsageRollups(deps.db, deps.now(), false),
    /**
     * The licenses validated most in the window, most first (the dashboard's table). The last 30
     * days are kept ranked by the fold (usage_license_window); another window ranks the rollups.
     */
    async top(query: { productId?: string; from?: string; to?: string }, limit: number) {
      const window = analyticsWindow(query, deps.now());
      await fold();
      const isLast30 = Date.parse(`${window.to}T00:00:00Z`) - Date.parse(`${window.from}T00:00:00Z`) === 29 * DAY;
      const kept = isLast30
        ? await topLicensesOfWindow(deps.db, { productId: query.productId }, window.to, limit)
        : undefined;
      const licenses = kept ?? (await topLicenses(deps.reads, { productId: query.productId }, window, limit));
      return { ...window, licenses };
    },
  };
}
export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
