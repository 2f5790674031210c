import { index, json, pgTable, timestamp, varchar } from 'drizzle-orm/pg-core';

/**
 * connect-pg-simple's table (its table.sql) under the name a service gives it
 * (`paste_session`, `license_session`): each service declares its own with this and creates it
 * in its migrations, and passes the name to `createAuth` (the store never creates it itself).
 * Tables of their own keep two services that share one database (a lone DATABASE_URL) apart.
 */
export function createSessionTable<Name extends string>(name: Name) {
  return pgTable(
    name,
    {
      sid: varchar('sid').primaryKey(),
      sess: json('sess').notNull(),
      expire: timestamp('expire', { precision: 6 }).notNull(),
    },
    (table) => [index(`IDX_${name}_expire`).on(table.expire)],
  );
}
