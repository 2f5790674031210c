import type { Queryable } from '@app/db';
import type { customerCount } from '../customers/customers.service.js';
import type { LicenseReads } from '../common/license-reads.js';
import type { productSummaries } from '../products/products.service.js';
import type { transactionTotalsByStatus } from '../transactions/transactions.service.js';
import type { usageCountsBetween } from '../usage/usage.service.js';

export interface SummaryStatistics {
  licenses: { total: number; active: number; inactive: number; suspended: number; revoked: number; expired: number };
  licensesByType: Record<string, number>;
  products: { total: number; active: number };
  customers: { total: number };
  validations: { total: number; success: number; blocked: number; invalid: number; last30Days: number };
  transactions: { total: number; byStatus: Record<string, number>; completedAmount: number };
  licensesByProduct: { name: string; prefix: string; total: number; active: number }[];
}

/** What the summary reads of other features, each through the feature that owns the table (app.ts passes them). */
export interface SummaryReads {
  licenses: Pick<LicenseReads, 'countsAt' | 'sum' | 'total'>;
  usageCountsBetween: typeof usageCountsBetween;
  productSummaries: typeof productSummaries;
  customerCount: typeof customerCount;
  transactionTotals: typeof transactionTotalsByStatus;
}

/**
 * General statistics: the license and validation figures from the counters, the small tables
 * (products, customers, transactions) by aggregate queries, all read from `db`.
 */
export async function summaryStatistics(reads: SummaryReads, db: Queryable, now: Date): Promise<SummaryStatistics> {
  const licenseRows = await reads.licenses.countsAt(db, now);
  const l = reads.licenses.total(licenseRows);
  const byType = reads.licenses.sum(licenseRows, (row) => row.licenseType);
  const byProduct = reads.licenses.sum(licenseRows, (row) => row.productId);
  const products = await reads.productSummaries(db);
  const customers = { total: await reads.customerCount(db) };
  const allValidations = await reads.usageCountsBetween(db, {});
  const recentValidations = await reads.usageCountsBetween(db, { from: new Date(now.getTime() - 30 * 86_400_000) });
  const transactions = await reads.transactionTotals(db);
  const byStatus = Object.fromEntries(transactions.map((row) => [row.status, row.count]));
  return {
    licenses: {
      total: l.total,
      active: l.active,
      inactive: l.inactive,
      suspended: l.suspendedUnrevoked,
      revoked: l.revoked,
      expired: l.expiredUnrevoked,
    },
    licensesByType: Object.fromEntries(
      [...byType].filter(([, counts]) => counts.total > 0).map(([type, counts]) => [type, counts.total]),
    ),
    products: { total: products.length, active: products.filter((row) => row.active).length },
    customers,
    validations: { ...allValidations, last30Days: recentValidations.total },
    transactions: {
      total: transactions.reduce((sum, row) => sum + row.count, 0),
      byStatus,
      completedAmount: transactions.find((row) => row.status === 'completed')?.amount ?? 0,
    },
    licensesByProduct: products.map((row) => ({
      name: row.name,
      prefix: row.prefix,
      total: byProduct.get(row.id)?.total ?? 0,
      active: byProduct.get(row.id)?.active ?? 0,
    })),
  };
}
