import type { Queryable } from '@app/db';
import { iso } from '../common/schemas.js';
import { licenseSelect, type LicenseRow } from '../licenses/licenses.repository.js';

// Every query takes the signed-in customer's id: a license of another customer is never read.

export async function findCustomerLicense(db: Queryable, customerId: string, licenseId: string): Promise<LicenseRow | undefined> {
  const { rows } = await db.query<LicenseRow>(`${licenseSelect} WHERE l.customer_id = $1 AND l.id = $2`, [customerId, licenseId]);
  return rows[0];
}

/** Whether the license exists and belongs to someone other than this customer. */
export async function isOtherCustomersLicense(db: Queryable, customerId: string, licenseId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM licenses WHERE id = $1 AND customer_id IS DISTINCT FROM $2', [licenseId, customerId]);
  return (rowCount ?? 0) > 0;
}

export async function listCustomerLicenses(db: Queryable, customerId: string): Promise<LicenseRow[]> {
  const { rows } = await db.query<LicenseRow>(`${licenseSelect} WHERE l.customer_id = $1 ORDER BY l.created_at DESC, l.id`, [customerId]);
  return rows;
}

export async function customerStats(db: Queryable, customerId: string, now: Date) {
  const { rows } = await db.query<Record<string, number>>(
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
     FROM licenses WHERE customer_id = $1`, [customerId, now]);
  const row = rows[0]!;
  return {
    totalLicenses: row.total!, activeLicenses: row.active!, expiredLicenses: row.expired!, suspendedLicenses: row.suspended!,
    totalRequests: row.requests!, successfulRequests: row.successful!,
    byType: { fixed: row.fixed!, trial: row.trial!, consumption: row.consumption!, enterprise: row.enterprise! },
  };
}

export interface UsageRange { start: Date; end: Date; maxRequests: number }

export async function licenseUsage(db: Queryable, customerId: string, licenseId: string, range: UsageRange) {
  // The join on the customer keeps the owner in the query even though the caller checked it.
  const scope = `FROM usage_records u JOIN licenses l ON l.id = u.license_id
    WHERE l.customer_id = $1 AND u.license_id = $2 AND u.created_at >= $3 AND u.created_at <= $4`;
  const params = [customerId, licenseId, range.start, range.end];
  const [daily, requests] = await Promise.all([
    db.query<{ day: string; status: 'success' | 'blocked' | 'invalid'; n: number }>(
      `SELECT to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, u.status, count(*) AS n ${scope}
       GROUP BY 1, 2 ORDER BY 1`, params),
    db.query<{ id: number; ip: string | null; hwid: string | null; status: string; reason: string | null; created_at: Date }>(
      `SELECT u.id, u.ip, u.hwid, u.status, u.reason, u.created_at ${scope} ORDER BY u.created_at DESC, u.id DESC LIMIT $5`,
      [...params, range.maxRequests]),
  ]);
  const byStatus = { success: 0, blocked: 0, invalid: 0 };
  const dailyStats: Record<string, { success: number; blocked: number; invalid: number }> = {};
  for (const row of daily.rows) {
    byStatus[row.status] += row.n;
    (dailyStats[row.day] ??= { success: 0, blocked: 0, invalid: 0 })[row.status] += row.n;
  }
  return {
    total: byStatus.success + byStatus.blocked + byStatus.invalid,
    byStatus,
    dailyStats,
    requests: requests.rows.map((row) => ({
      _id: String(row.id), ipAddress: row.ip ?? '', hwid: row.hwid ?? '', status: row.status, reason: row.reason, createdAt: iso(row.created_at)!,
    })),
  };
}
