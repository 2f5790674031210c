import { bigint, date, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/** Named counters kept since the site began (e.g. 'api_usage'); one row each, incremented atomically. */
export const countersTable = pgTable('paste_counters', {
  name: text('name').primaryKey(),
  value: bigint('value', { mode: 'number' }).notNull().default(0),
});

/**
 * The statistics per UTC creation day, over a few shards summed on read (migration
 * 0005_paste_stats.sql): kept by triggers on insert and delete and by the view statements.
 */
export const pasteStatsTable = pgTable(
  'paste_stats',
  {
    day: date('day').notNull(),
    shard: smallint('shard').notNull(),
    pastes: bigint('pastes', { mode: 'number' }).notNull().default(0),
    views: bigint('views', { mode: 'number' }).notNull().default(0),
    chars: bigint('chars', { mode: 'number' }).notNull().default(0),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
    /** End-to-end encrypted pastes among `pastes` (0008_encrypted_pastes.sql). */
    encrypted: bigint('encrypted', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.shard] })],
);
