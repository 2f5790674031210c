import { index, json, pgTable, timestamp, varchar } from 'drizzle-orm/pg-core';

/**
 * connect-pg-simple's table (its table.sql), declared here so each app's migrations create it:
 * the store is told never to create it itself.
 */
export const sessionTable = pgTable(
  'session',
  {
    sid: varchar('sid').primaryKey(),
    sess: json('sess').notNull(),
    expire: timestamp('expire', { precision: 6 }).notNull(),
  },
  (table) => [index('IDX_session_expire').on(table.expire)],
);
