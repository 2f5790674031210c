import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const customers = pgTable(
  'customers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    /** The identity provider's user id the customer signs in to the portal with. */
    userId: text('user_id'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    uniqueIndex('customers_user_id_idx').on(table.userId),
    index('customers_email_idx').on(table.email),
    // The customer list's order (newest first).
    index('customers_created_idx').on(table.createdAt.desc(), table.id),
  ],
);
