import { sql } from 'drizzle-orm';
import { pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { licenses } from '../licenses/licenses.table.js';

/**
 * Notices the scheduled scans have sent, one per (license, notice): an expiry warning is keyed by
 * the expiry it warns about, so a renewed license is warned again about its new expiry.
 */
export const licenseNotices = pgTable(
  'license_notices',
  {
    licenseId: uuid('license_id')
      .notNull()
      .references(() => licenses.id, { onDelete: 'cascade' }),
    notice: text('notice').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [primaryKey({ columns: [table.licenseId, table.notice] })],
);

/** Anomalies reported, keyed by kind, subject and time window, so a scan reports each once per window. */
export const anomalyReports = pgTable('anomaly_reports', {
  key: text('key').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});
