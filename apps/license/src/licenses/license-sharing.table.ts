import { bigint, date, index, integer, pgTable, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/**
 * Key sharing (wave 4): a license validated from more distinct addresses in a UTC day than its
 * `sharing_address_limit` (or its policy's). Inserted once per license and day by the trigger of
 * migration 0022_usage_insight.sql (usage_daily_inserted, as the day's addresses pass the limit);
 * `announced_at` is set when LICENSE_SHARING_SUSPECTED was emitted (license-sharing.repository.ts).
 */
export const licenseSharingFlags = pgTable(
  'license_sharing_flags',
  {
    licenseId: uuid('license_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    addresses: bigint('addresses', { mode: 'number' }).notNull(),
    addressLimit: integer('address_limit').notNull(),
    flaggedAt: timestamp('flagged_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    announcedAt: timestamp('announced_at', { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.licenseId, table.day] }),
    index('license_sharing_flags_unannounced_idx')
      .on(table.flaggedAt)
      .where(sql`${table.announcedAt} IS NULL`),
  ],
);
