import { parseRow, parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import { usageRecordRow, type UsageRecordRow } from './usage.schema.js';

// usage_records is written in two places on purpose: validation appends every attempt inside
// `license_validate_batch_v3` (validation/validate-batch.sql, one statement per batch for speed),
// and this file removes rows. See test/table-owners.test.ts.

/** usage_records has no foreign key (see usage.table.ts): a deleted license's rows go with it here. */
export async function deleteUsageOfLicense(db: Queryable, licenseId: string): Promise<void> {
  await db.query('DELETE FROM usage_records WHERE license_id = $1', [licenseId]);
}

// Reads for the customer portal's pages. Each takes the signed-in customer's id and joins the
// license on it, so a record of another customer's license is never read, whatever id comes in.

const customerScope = `FROM usage_records u JOIN licenses l ON l.id = u.license_id WHERE l.customer_id = $1 AND u.license_id = $2`;

/** Validations per UTC day in [from, to) (whole days: `from` and `to` are midnights), split into successes and failures (blocked or invalid). */
const dailyOutcomeRow = z.object({ day: z.string(), success: z.number(), failure: z.number() });
export type DailyOutcome = z.infer<typeof dailyOutcomeRow>;
const totalRow = z.object({ total: z.number() });

export async function dailyOutcomesOfCustomerLicense(
  db: Queryable,
  customerId: string,
  licenseId: string,
  range: { from: Date; to: Date },
): Promise<DailyOutcome[]> {
  // From the daily rollups (kept forever, unlike the records): whole UTC days of the range.
  const { rows } = await db.query(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
       coalesce(sum(d.records) FILTER (WHERE d.outcome = ''), 0)::bigint AS success,
       coalesce(sum(d.records) FILTER (WHERE d.outcome <> ''), 0)::bigint AS failure
     FROM usage_daily d JOIN licenses l ON l.id = d.license_id WHERE l.customer_id = $1 AND d.license_id = $2
       AND d.day >= ($3::timestamptz AT TIME ZONE 'UTC')::date AND d.day < ($4::timestamptz AT TIME ZONE 'UTC')::date
     GROUP BY 1 ORDER BY 1`,
    [customerId, licenseId, range.from, range.to],
  );
  return parseRows(dailyOutcomeRow, rows);
}

/** One page of a license's records, newest first, within optional [from, to) bounds, and how many there are in all. */
export async function usageRecordsOfCustomerLicense(
  db: Queryable,
  customerId: string,
  licenseId: string,
  query: { from?: Date; to?: Date; limit: number; offset: number },
): Promise<{ rows: UsageRecordRow[]; total: number }> {
  const params: unknown[] = [customerId, licenseId];
  let bounds = '';
  if (query.from) bounds += ` AND u.created_at >= $${params.push(query.from)}`;
  if (query.to) bounds += ` AND u.created_at < $${params.push(query.to)}`;
  const [page, count] = await Promise.all([
    db.query(
      `SELECT u.id, u.ip, u.hwid, u.status, u.reason, u.created_at ${customerScope}${bounds}
       ORDER BY u.created_at DESC, u.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, query.offset],
    ),
    db.query(`SELECT count(*) AS total ${customerScope}${bounds}`, params),
  ]);
  return { rows: parseRows(usageRecordRow, page.rows), total: parseRow(totalRow, count.rows).total };
}

/** When each IP and hardware id the license holds now was first and last seen in its records. */
const deviceSightingRow = z.object({
  kind: z.enum(['ip', 'hwid']),
  value: z.string(),
  first_seen: z.date(),
  last_seen: z.date(),
});
export type DeviceSighting = z.infer<typeof deviceSightingRow>;

export async function deviceSightingsOfCustomerLicense(
  db: Queryable,
  customerId: string,
  licenseId: string,
): Promise<DeviceSighting[]> {
  const { rows } = await db.query(
    `SELECT 'ip' AS kind, u.ip AS value, min(u.created_at) AS first_seen, max(u.created_at) AS last_seen
       ${customerScope} AND u.ip = ANY(l.used_ips) GROUP BY u.ip
     UNION ALL
     SELECT 'hwid' AS kind, u.hwid AS value, min(u.created_at) AS first_seen, max(u.created_at) AS last_seen
       ${customerScope} AND u.hwid = ANY(l.used_hwids) GROUP BY u.hwid`,
    [customerId, licenseId],
  );
  return parseRows(deviceSightingRow, rows);
}

// The same reads for the admin console, which sees every license: scoped by the license alone.

const licenseScope = 'FROM usage_records u WHERE u.license_id = $1';

/** Validations per UTC day of one license in [from, to), as `dailyOutcomesOfCustomerLicense`. */
export async function dailyOutcomesOfLicense(
  db: Queryable,
  licenseId: string,
  range: { from: Date; to: Date },
): Promise<DailyOutcome[]> {
  const { rows } = await db.query(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
       coalesce(sum(d.records) FILTER (WHERE d.outcome = ''), 0)::bigint AS success,
       coalesce(sum(d.records) FILTER (WHERE d.outcome <> ''), 0)::bigint AS failure
     FROM usage_daily d WHERE d.license_id = $1
       AND d.day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND d.day < ($3::timestamptz AT TIME ZONE 'UTC')::date
     GROUP BY 1 ORDER BY 1`,
    [licenseId, range.from, range.to],
  );
  return parseRows(dailyOutcomeRow, rows);
}

/** The latest `limit` records of one license, newest first, and how many it has in all. */
export async function recentUsageRecordsOfLicense(
  db: Queryable,
  licenseId: string,
  limit: number,
): Promise<{ rows: UsageRecordRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query(
      `SELECT u.id, u.ip, u.hwid, u.status, u.reason, u.created_at ${licenseScope} ORDER BY u.created_at DESC, u.id DESC LIMIT $2`,
      [licenseId, limit],
    ),
    db.query(`SELECT count(*) AS total ${licenseScope}`, [licenseId]),
  ]);
  return { rows: parseRows(usageRecordRow, page.rows), total: parseRow(totalRow, count.rows).total };
}

/** A license's validation attempts, all time (the license detail's `usageStats`). */
const licenseUsageStatsRow = z.object({
  total: z.number(),
  success: z.number(),
  blocked: z.number(),
  ips: z.number(),
  hwids: z.number(),
  last: z.date().nullable(),
});
export type LicenseUsageStats = z.infer<typeof licenseUsageStatsRow>;

export async function usageStatsOfLicense(db: Queryable, licenseId: string): Promise<LicenseUsageStats> {
  const { rows } = await db.query(
    `SELECT count(*) AS total, count(*) FILTER (WHERE status = 'success') AS success,
       count(*) FILTER (WHERE status = 'blocked') AS blocked, count(DISTINCT ip) AS ips, count(DISTINCT hwid) AS hwids,
       max(created_at) AS last
     FROM usage_records WHERE license_id = $1`,
    [licenseId],
  );
  return parseRow(licenseUsageStatsRow, rows);
}

const countRow = z.object({ n: z.number() });

/**
 * Retention (wave 4): creates the monthly partitions of usage_records from this month to two
 * months ahead, then drops the months that ended `retentionDays` or more before `now` and
 * deletes older rows of the default partition; `exact` (the embedded database) also deletes the
 * older rows of the month that holds the cutoff. Both are SQL functions of migration
 * 0022_usage_insight.sql. Answers the partitions created and dropped.
 */
export async function maintainUsageRecords(
  db: Queryable,
  now: Date,
  retentionDays: number,
  exact: boolean,
): Promise<{ created: number; dropped: number }> {
  const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1));
  const created = await db.query('SELECT usage_records_ensure_partitions($1, $2)::int AS n', [now, ahead]);
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const dropped = await db.query('SELECT usage_records_prune($1, $2)::int AS n', [cutoff, exact]);
  return { created: parseRow(countRow, created.rows).n, dropped: parseRow(countRow, dropped.rows).n };
}
