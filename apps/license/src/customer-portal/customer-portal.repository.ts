import { parseRow, parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import { usageRecordRow, type UsageRecordRow } from '../usage/usage.schema.js';
import { usageStatuses } from '../usage/usage.table.js';

// Every query takes the signed-in customer's id: a license of another customer is never read.
// The customer's licenses themselves are read through the licenses feature (licenseOfCustomer).

/** Whether the license exists and belongs to someone other than this customer. */
export async function isOtherCustomersLicense(db: Queryable, customerId: string, licenseId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM licenses WHERE id = $1 AND customer_id IS DISTINCT FROM $2', [
    licenseId,
    customerId,
  ]);
  return (rowCount ?? 0) > 0;
}

const customerCountsRow = z.object({
  total: z.number(),
  active: z.number(),
  expired: z.number(),
  suspended: z.number(),
  fixed: z.number(),
  trial: z.number(),
  consumption: z.number(),
  enterprise: z.number(),
  requests: z.number(),
  successful: z.number(),
});
export type CustomerCounts = z.infer<typeof customerCountsRow>;

export async function customerStats(db: Queryable, customerId: string, now: Date): Promise<CustomerCounts> {
  const { rows } = await db.query(
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
  return parseRow(customerCountsRow, rows);
}

export interface UsageRange {
  start: Date;
  end: Date;
  maxRequests: number;
}

const dailyUsageRow = z.object({ day: z.string(), status: z.enum(usageStatuses), n: z.number() });
export type DailyUsage = z.infer<typeof dailyUsageRow>;
/** The latest attempts: rows of the usage feature's shape. */
export type UsageRequestRow = UsageRecordRow;

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
    db.query(
      `SELECT to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, u.status, count(*) AS n ${scope}
       GROUP BY 1, 2 ORDER BY 1`,
      params,
    ),
    db.query(
      `SELECT u.id, u.ip, u.hwid, u.status, u.reason, u.created_at ${scope} ORDER BY u.created_at DESC, u.id DESC LIMIT $5`,
      [...params, range.maxRequests],
    ),
  ]);
  return { daily: parseRows(dailyUsageRow, daily.rows), requests: parseRows(usageRecordRow, requests.rows) };
}
