import type { Queryable } from '@app/db';
import type { ScannedLicense } from '../licenses/licenses.repository.js';

const columns = 'id, key, expires_at, customer_id, product_id, license_type';

/** Licenses expiring within `days` that were not warned about this expiry yet; the insert is the claim. */
export async function claimExpiryWarnings(db: Queryable, now: Date, days: number): Promise<ScannedLicense[]> {
  const { rows } = await db.query<ScannedLicense>(
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
  return rows;
}

export interface ManyIps {
  license_id: string;
  key: string;
  customer_id: string | null;
  product_id: string;
  unique_ips: number;
}

export async function licensesWithManyIps(db: Queryable, since: Date, maxIps: number): Promise<ManyIps[]> {
  const { rows } = await db.query<ManyIps>(
    `SELECT u.license_id, l.key, l.customer_id, l.product_id, count(DISTINCT u.ip)::int AS unique_ips
     FROM usage_records u JOIN licenses l ON l.id = u.license_id
     WHERE u.created_at > $1 AND u.ip IS NOT NULL
     GROUP BY u.license_id, l.key, l.customer_id, l.product_id
     HAVING count(DISTINCT u.ip) > $2`,
    [since, maxIps],
  );
  return rows;
}

export interface ManyFailures {
  ip: string;
  failures: number;
  licenses: number;
}

export async function ipsWithManyFailures(db: Queryable, since: Date, maxFailures: number): Promise<ManyFailures[]> {
  const { rows } = await db.query<ManyFailures>(
    `SELECT ip, count(*)::int AS failures, count(DISTINCT license_id)::int AS licenses
     FROM usage_records WHERE created_at > $1 AND status <> 'success' AND ip IS NOT NULL
     GROUP BY ip HAVING count(*) > $2`,
    [since, maxFailures],
  );
  return rows;
}

/** Claims an anomaly report key; false when it was reported already. */
export async function claimAnomalyReport(db: Queryable, key: string): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO anomaly_reports (key) VALUES ($1) ON CONFLICT DO NOTHING', [key]);
  return (rowCount ?? 0) > 0;
}
