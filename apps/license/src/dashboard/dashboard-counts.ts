import type { Queryable } from '@app/db';
import type { customerCount } from '../customers/customers.service.js';
import type { LicenseReads } from '../common/license-reads.js';
import type { productCount } from '../products/products.service.js';
import type { usageCountsBetween } from '../usage/usage.service.js';

export interface DashboardCounts {
  products: number;
  customers: number;
  licenses: { total: number; active: number; suspended: number; expired: number; revoked: number };
  validations: { total: number; success: number; blocked: number; invalid: number };
}

/** What the dashboard reads of other features, each through the feature that owns the table (app.ts passes them). */
export interface DashboardReads {
  licenses: Pick<LicenseReads, 'countsAt' | 'total'>;
  usageCountsBetween: typeof usageCountsBetween;
  productCount: typeof productCount;
  customerCount: typeof customerCount;
}

/**
 * The admin dashboard's headline numbers, from the counters (never by counting licenses or usage
 * records). "Active" is what the product counts call active: active, not suspended, not revoked,
 * not expired. Validations are those of the 24 hours before `now`.
 */
export async function dashboardCounts(reads: DashboardReads, db: Queryable, now: Date): Promise<DashboardCounts> {
  const [products, customers, licenseRows, validations] = await Promise.all([
    reads.productCount(db),
    reads.customerCount(db),
    reads.licenses.countsAt(db, now),
    reads.usageCountsBetween(db, { from: new Date(now.getTime() - 86_400_000), to: now }),
  ]);
  const l = reads.licenses.total(licenseRows);
  return {
    products,
    customers,
    licenses: { total: l.total, active: l.active, suspended: l.suspended, expired: l.expired, revoked: l.revoked },
    validations,
  };
}
