import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { LicenseCountRow, LicenseTotals } from '../common/license-reads.js';

/** Licenses of one product and type, counted at one instant. */
const licenseCountRow: z.ZodType<LicenseCountRow> = z.object({
  productId: z.string(),
  licenseType: z.string(),
  total: z.number(),
  /** Active, not suspended, not revoked, not expired. */
  active: z.number(),
  /** Not active, not suspended, not revoked. */
  inactive: z.number(),
  suspended: z.number(),
  suspendedUnrevoked: z.number(),
  revoked: z.number(),
  /** expires_at <= now, whatever the other flags. */
  expired: z.number(),
  expiredUnrevoked: z.number(),
});

/**
 * License counts per product and type at `now`, from license_counts (kept by triggers, see
 * migration 0009_license_counts.sql) without reading the licenses: the rows of expiry days
 * before today count as expired, those after it (and 'infinity') as not; the licenses that
 * expire today (UTC) are read by an index range over expires_at and classified against `now`.
 * Exact at any instant, also under a test's fixed clock. `productId` narrows to one product.
 */
export async function licenseCountsAt(db: Queryable, now: Date, productId?: string): Promise<LicenseCountRow[]> {
  const { rows } = await db.query(
    `WITH b AS (SELECT ($1::timestamptz AT TIME ZONE 'UTC')::date AS today,
                       (($1::timestamptz AT TIME ZONE 'UTC')::date)::timestamp AT TIME ZONE 'UTC' AS day_start),
     parts AS (
       SELECT c.product_id, c.license_type, c.total,
              CASE WHEN c.expiry_day > b.today THEN c.live ELSE 0 END AS active,
              c.inactive, c.suspended, c.suspended_unrevoked, c.revoked,
              CASE WHEN c.expiry_day < b.today THEN c.total ELSE 0 END AS expired,
              CASE WHEN c.expiry_day < b.today THEN c.total - c.revoked ELSE 0 END AS expired_unrevoked
         FROM license_counts c, b
        WHERE c.expiry_day <> b.today AND ($2::uuid IS NULL OR c.product_id = $2)
       UNION ALL
       SELECT l.product_id, l.license_type, 1,
              (l.active AND NOT l.suspended AND NOT l.revoked AND l.expires_at > $1)::int,
              (NOT l.active AND NOT l.suspended AND NOT l.revoked)::int, l.suspended::int,
              (l.suspended AND NOT l.revoked)::int, l.revoked::int,
              (l.expires_at <= $1)::int, (l.expires_at <= $1 AND NOT l.revoked)::int
         FROM licenses l, b
        WHERE l.expires_at >= b.day_start AND l.expires_at < b.day_start + interval '1 day'
          AND ($2::uuid IS NULL OR l.product_id = $2))
     SELECT product_id AS "productId", license_type AS "licenseType",
            sum(total)::int AS total, sum(active)::int AS active, sum(inactive)::int AS inactive,
            sum(suspended)::int AS suspended, sum(suspended_unrevoked)::int AS "suspendedUnrevoked",
            sum(revoked)::int AS revoked, sum(expired)::int AS expired, sum(expired_unrevoked)::int AS "expiredUnrevoked"
       FROM parts GROUP BY 1, 2`,
    [now, productId ?? null],
  );
  return parseRows(licenseCountRow, rows);
}

const zero = (): LicenseTotals => ({
  total: 0,
  active: 0,
  inactive: 0,
  suspended: 0,
  suspendedUnrevoked: 0,
  revoked: 0,
  expired: 0,
  expiredUnrevoked: 0,
});

/** Adds up rows of licenseCountsAt, grouped by `key` (all of them under '' without one). */
export function sumLicenseCounts(
  rows: LicenseCountRow[],
  key: (row: LicenseCountRow) => string = () => '',
): Map<string, LicenseTotals> {
  const sums = new Map<string, LicenseTotals>();
  for (const row of rows) {
    const k = key(row);
    const sum = sums.get(k) ?? zero();
    for (const name of Object.keys(sum) as Array<keyof LicenseTotals>) sum[name] += row[name];
    sums.set(k, sum);
  }
  return sums;
}

export function totalLicenseCounts(rows: LicenseCountRow[]): LicenseTotals {
  return sumLicenseCounts(rows).get('') ?? zero();
}
