import type { Queryable, RowOf } from '@app/db';
import { licenseSelect, type LicenseRow } from '../licenses/licenses.repository.js';
import type { usageRecords } from '../usage/usage.table.js';

// Every query takes the signed-in customer's id: a license of another customer is never read.

export async function findCustomerLicense(
  db: Queryable,
  customerId: string,
  licenseId: string,
): Promise<LicenseRow | undefined> {
  const { rows } = await db.query<LicenseRow>(`${licenseSelect} WHERE l.customer_id = $1 AND l.id = $2`, [
    customerId,
    licenseId,
  ]);
  return rows[0];
}

/** Whether the license exists and belongs to someone other than this customer. */
export async function isOtherCustomersLicense(db: Queryable, customerId: string, licenseId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM licenses WHERE id = $1 AND customer_id IS DISTINCT FROM $2', [
    licenseId,
    customerId,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function listCustomerLicenses(db: Queryable, customerId: string): Promise<LicenseRow[]> {
  const { rows } = await db.query<LicenseRow>(
    `${licenseSelect} WHERE l.customer_id = $1 ORDER BY l.created_at DESC, l.id`,
    [customerId],
  );
  return rows;
}

export interface CustomerCounts {
  total: number;
  active: number;
  expired: number;
  suspended: number;
  fixed: number;
  trial: number;
  consumption: number;
  enterprise: number;
  requests: number;
  successful: number;
}

export async function customerStats(db: Queryable, customerId: string, now: Date): Promise<CustomerCounts> {
  const { rows } = await db.query<CustomerCounts>(
    `SELECT count(*) AS total,
       count(*) FILTER (WHERE active AND NOT suspended AND NOT revoked AND (expires_at IS NULL OR expires_at > $2)) AS active,
       count(*) FILTER (WHERE expires_at IS NOT NULL AND expires_at <= $2) AS expired,
       count(*) FILTER (WHERE suspended) AS suspended,
       count(*) FILTER (WHERE license_type = 'fixed') AS fixed,
       count(*) FILTER (WHERE license_type = 'trial') AS trial,
       count(*) FILTER (WHERE license_type = 'consumption') AS consumption,
       count(*) FILTER (WHERE license_type = 'enterprise') AS enterprise,
       (SELECT count(*) FROM usage_records u JOIN licenses l2 ON l2.id = u.license_id WHERE l2.customer_id = $1) AS requests,
       (SELECT count(*) FROM usage_records u JOIN licenses l2 ON l2.id = u.license_id
          WHERE l2.customer_id = $1 AND u.status = 'success') AS successful
     FROM licenses WHERE customer_id = $1`,
    [customerId, now],
  );
  return rows[0]!;
}

export interface UsageRange {
  start: Date;
  end: Date;
  maxRequests: number;
}

export interface DailyUsage {
  day: string;
  status: RowOf<typeof usageRecords>['status'];
  n: number;
}
export type UsageRequestRow = Pick<
  RowOf<typeof usageRecords>,
  'id' | 'ip' | 'hwid' | 'status' | 'reason' | 'created_at'
>;

/** Attempts per day and status in the range, and the latest `maxRequests` attempts themselves. */
export async function licenseUsage(
  db: Queryable,
  customerId: string,
  licenseId: string,
  range: UsageRange,
): Promise<{ daily: DailyUsage[]; requests: UsageRequestRow[] }> {
  // The join on the customer keeps the owner in the query even though the caller checked it.
  const scope = `FROM usage_records u JOIN licenses l ON l.id = u.license_id
    WHERE l.customer_id = $1 AND u.license_id = $2 AND u.created_at >= $3 AND u.created_at <= $4`;
  const params = [customerId, licenseId, range.start, range.end];
  const [daily, requests] = await Promise.all([
    db.query<DailyUsage>(
      `SELECT to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, u.status, count(*) AS n ${scope}
       GROUP BY 1, 2 ORDER BY 1`,
      params,
    ),
    db.query<UsageRequestRow>(
      `SELECT u.id, u.ip, u.hwid, u.status, u.reason, u.created_at ${scope} ORDER BY u.created_at DESC, u.id DESC LIMIT $5`,
      [...params, range.maxRequests],
    ),
  ]);
  return { daily: daily.rows, requests: requests.rows };
}
