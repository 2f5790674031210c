import type { Queryable } from '@app/db';
import { licenseCountsAt, totalLicenseCounts } from '../licenses/license-counts.repository.js';
import { usageCountsBetween } from '../usage/usage-counts.repository.js';

export interface DashboardCounts {
  products: number;
  customers: number;
  licenses: { total: number; active: number; suspended: number; expired: number; revoked: number };
  validations: { total: number; success: number; blocked: number; invalid: number };
}

/**
 * The admin dashboard's headline numbers, from the counters (never by counting licenses or usage
 * records). "Active" is what the product counts call active: active, not suspended, not revoked,
 * not expired. Validations are those of the 24 hours before `now`.
 */
export async function dashboardCounts(db: Queryable, now: Date): Promise<DashboardCounts> {
  const [entities, licenseRows, validations] = await Promise.all([
    db.query<{ products: number; customers: number }>(
      'SELECT (SELECT count(*) FROM products)::int AS products, (SELECT count(*) FROM customers)::int AS customers',
    ),
    licenseCountsAt(db, now),
    usageCountsBetween(db, { from: new Date(now.getTime() - 86_400_000), to: now }),
  ]);
  const l = totalLicenseCounts(licenseRows);
  return {
    products: Number(entities.rows[0]?.products ?? 0),
    customers: Number(entities.rows[0]?.customers ?? 0),
    licenses: { total: l.total, active: l.active, suspended: l.suspended, expired: l.expired, revoked: l.revoked },
    validations,
  };
}
