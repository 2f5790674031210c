import type { Queryable } from '@app/db';

export interface DashboardCounts {
  products: number;
  customers: number;
  licenses: { total: number; active: number; suspended: number; expired: number; revoked: number };
  validations: { total: number; success: number; blocked: number; invalid: number };
}

/**
 * The admin dashboard's headline numbers in one statement. "Active" is what the product counts
 * call active: active, not suspended, not revoked, not expired. Validations are those of the
 * 24 hours before `now` (usage_records_created_idx keeps this a range scan).
 */
export async function dashboardCounts(db: Queryable, now: Date): Promise<DashboardCounts> {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*) FROM products) AS products,
       (SELECT count(*) FROM customers) AS customers,
       l.total AS licenses, l.active, l.suspended, l.expired, l.revoked,
       u.total AS validations, u.success, u.blocked, u.invalid
     FROM (SELECT count(*) AS total,
             count(*) FILTER (WHERE active AND NOT suspended AND NOT revoked AND (expires_at IS NULL OR expires_at > $1)) AS active,
             count(*) FILTER (WHERE suspended) AS suspended,
             count(*) FILTER (WHERE expires_at IS NOT NULL AND expires_at <= $1) AS expired,
             count(*) FILTER (WHERE revoked) AS revoked
           FROM licenses) l,
          (SELECT count(*) AS total,
             count(*) FILTER (WHERE status = 'success') AS success,
             count(*) FILTER (WHERE status = 'blocked') AS blocked,
             count(*) FILTER (WHERE status = 'invalid') AS invalid
           FROM usage_records WHERE created_at > $1::timestamptz - interval '24 hours' AND created_at <= $1) u`,
    [now]);
  const row = rows[0]!;
  const n = (name: string) => Number(row[name] ?? 0);
  return {
    products: n('products'),
    customers: n('customers'),
    licenses: { total: n('licenses'), active: n('active'), suspended: n('suspended'), expired: n('expired'), revoked: n('revoked') },
    validations: { total: n('validations'), success: n('success'), blocked: n('blocked'), invalid: n('invalid') },
  };
}
