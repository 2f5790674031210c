import { parseRows, type Queryable, rowSchema } from '@app/db';
import { z } from 'zod';
import type { ScannedLicense } from '../licenses/licenses.schema.js';
import { licenses } from '../licenses/licenses.table.js';

const columns = 'id, key, expires_at, customer_id, product_id, license_type';
const scannedSchema = rowSchema(licenses).pick({
  id: true,
  key: true,
  expires_at: true,
  customer_id: true,
  product_id: true,
  license_type: true,
});

/** Licenses expiring within `days` that were not warned about this expiry yet; the insert is the claim. */
export async function claimExpiryWarnings(db: Queryable, now: Date, days: number): Promise<ScannedLicense[]> {
  const { rows } = await db.query(
    `WITH due AS (
       SELECT ${columns} FROM licenses
       WHERE NOT revoked AND expires_at > $1 AND expires_at <= $1 + make_interval(days => $2::int)
     ), claimed AS (
       INSERT INTO license_notices (license_id, notice)
       SELECT id, 'expiry-warning:' || extract(epoch FROM expires_at)::bigint FROM due
       ON CONFLICT DO NOTHING RETURNING license_id
     )
     SELECT due.* FROM due JOIN claimed ON claimed.license_id = due.id`,
    [now, days],
  );
  // Checked against the table's columns; typed as it infers them (`license_type`).
  return parseRows(scannedSchema, rows) as ScannedLicense[];
}

const manyIpsRow = z.object({
  license_id: z.string(),
  key: z.string(),
  customer_id: z.string().nullable(),
  product_id: z.string(),
  unique_ips: z.number(),
});
export type ManyIps = z.infer<typeof manyIpsRow>;

export async function licensesWithManyIps(db: Queryable, since: Date, maxIps: number): Promise<ManyIps[]> {
  const { rows } = await db.query(
    `SELECT u.license_id, l.key, l.customer_id, l.product_id, count(DISTINCT u.ip)::int AS unique_ips
     FROM usage_records u JOIN licenses l ON l.id = u.license_id
     WHERE u.created_at > $1 AND u.ip IS NOT NULL
     GROUP BY u.license_id, l.key, l.customer_id, l.product_id
     HAVING count(DISTINCT u.ip) > $2`,
    [since, maxIps],
  );
  return parseRows(manyIpsRow, rows);
}

const manyFailuresRow = z.object({ ip: z.string(), failures: z.number(), licenses: z.number() });
export type ManyFailures = z.infer<typeof manyFailuresRow>;

export async function ipsWithManyFailures(db: Queryable, since: Date, maxFailures: number): Promise<ManyFailures[]> {
  const { rows } = await db.query(
    `SELECT ip, count(*)::int AS failures, count(DISTINCT license_id)::int AS licenses
     FROM usage_records WHERE created_at > $1 AND status <> 'success' AND ip IS NOT NULL
     GROUP BY ip HAVING count(*) > $2`,
    [since, maxFailures],
  );
  return parseRows(manyFailuresRow, rows);
}

/** Claims an anomaly report key; false when it was reported already. */
export async function claimAnomalyReport(db: Queryable, key: string): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO anomaly_reports (key) VALUES ($1) ON CONFLICT DO NOTHING', [key]);
  return (rowCount ?? 0) > 0;
}
