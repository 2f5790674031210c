import { bigint, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Validation attempts per hour (UTC), status and shard (4, drawn per statement; readers sum
 * them). Written only by the triggers of migration 0009_license_counts.sql, in the same
 * transaction as each usage_records write; read by usage-counts.repository.ts.
 */
export const usageCounts = pgTable(
  'usage_counts',
  {
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    status: text('status').notNull(),
    shard: smallint('shard').notNull(),
    records: bigint('records', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.hour, table.status, table.shard] })],
);
