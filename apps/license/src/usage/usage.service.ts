// What other features read and change of the usage records: the licenses feature (a license's
// statistics, its deletion), the admin console's and the customer portal's pages, the dashboard
// and the summary report. They go through here, never through the repositories; each function
// takes the database, or the caller's transaction, first (the records have no state of their own).
export {
  dailyOutcomesOfCustomerLicense,
  dailyOutcomesOfLicense,
  deleteUsageOfLicense,
  deviceSightingsOfCustomerLicense,
  maintainUsageRecords,
  recentUsageRecordsOfLicense,
  usageRecordsOfCustomerLicense,
  usageStatsOfLicense,
  type DailyOutcome,
  type DeviceSighting,
  type LicenseUsageStats,
} from './usage.repository.js';
export { usageCountsBetween, type UsageCounts } from './usage-counts.repository.js';
export type { UsageRecordRow } from './usage.schema.js';
export {
  dailyRollups,
  foldUsageRollups,
  topLicenses,
  topLicensesOfWindow,
  type DayRollup,
  type RollupScope,
  type TopLicense,
} from './usage-daily.repository.js';
