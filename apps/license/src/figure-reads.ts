import { customerCount } from './customers/customers.service.js';
import { licenseReads } from './licenses/license-reads.js';
import { productCount, productSummaries } from './products/products.service.js';
import { transactionTotalsByStatus } from './transactions/transactions.service.js';
import { usageCountsBetween } from './usage/usage.service.js';

/**
 * The figures the dashboard and the summary report show, each read through the feature that
 * owns its table, so neither reads another feature's tables by SQL. Each read takes the database
 * to read from (the replica when there is one).
 */
export const figureReads = {
  licenses: licenseReads,
  usageCountsBetween,
  productCount,
  productSummaries,
  customerCount,
  transactionTotals: transactionTotalsByStatus,
};
