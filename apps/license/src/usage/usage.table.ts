import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const usageStatuses = ['success', 'blocked', 'invalid'] as const;
export type UsageStatus = (typeof usageStatuses)[number];

/**
 * One row per validation attempt. `license_id` is null for unknown keys. A bigint from a
 * sequence (not a uuid) keeps this, the largest table, and its indexes small. Partitioned by
 * month of `created_at` (migration 0022_usage_insight.sql: `usage_records_YYYYMM` and a default
 * partition), so the primary key holds `created_at`; retention drops whole months.
 */
export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigint('id', { mode: 'number' })
      .notNull()
      .default(sql`nextval('usage_records_record_id_seq')`),
    // No foreign key on purpose: its check would lock the license row (FOR KEY SHARE) on every
    // validation. Validation writes ids it has just read; deleting a license deletes its rows.
    licenseId: uuid('license_id'),
    ip: text('ip'),
    hwid: text('hwid'),
    status: text('status').$type<UsageStatus>().notNull(),
    /** The error text of a failed validation. */
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    primaryKey({ name: 'usage_records_pkey', columns: [table.id, table.createdAt] }),
    index('usage_records_license_created_idx').on(table.licenseId, table.createdAt),
    index('usage_records_created_idx').on(table.createdAt),
    check('usage_records_status_check', sql`${table.status} in ('success', 'blocked', 'invalid')`),
  ],
);
