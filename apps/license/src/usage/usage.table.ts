import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const usageStatuses = ['success', 'blocked', 'invalid'] as const;
export type UsageStatus = (typeof usageStatuses)[number];

/**
 * One row per validation attempt. `license_id` is null for unknown keys. A bigint identity
 * (not a uuid) keeps this, the largest table, and its indexes small.
 */
export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
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
    index('usage_records_license_created_idx').on(table.licenseId, table.createdAt),
    index('usage_records_created_idx').on(table.createdAt),
    check('usage_records_status_check', sql`${table.status} in ('success', 'blocked', 'invalid')`),
  ],
);
