import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/** Named counters kept since the site began (e.g. 'api_usage'); one row each, incremented atomically. */
export const countersTable = pgTable('paste_counters', {
  name: text('name').primaryKey(),
  value: bigint('value', { mode: 'number' }).notNull().default(0),
});
