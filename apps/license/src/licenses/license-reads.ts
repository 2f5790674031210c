import type { LicenseReads } from '../common/license-reads.js';
import { licenseCountsAt, sumLicenseCounts, totalLicenseCounts } from './license-counts.repository.js';
import { countLicensesOfCustomers, productHasLicenses } from './licenses.repository.js';

/**
 * What other features may read of the licenses tables (products' and customers' counts, the
 * dashboard's and the summary's figures, the check before a product is deleted). They get this object passed in from
 * app.ts rather than importing the repositories, so the licenses tables are read by SQL here only.
 * Each read takes the database to read from, so a caller can read from the replica.
 */
export const licenseReads: LicenseReads = {
  countsAt: licenseCountsAt,
  productHasLicenses,
  countsByCustomer: countLicensesOfCustomers,
  sum: sumLicenseCounts,
  total: totalLicenseCounts,
};
