import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/**
 * Registered admins: a signed-in user is an admin only when a row holds their provider user id
 * and `removed_at` is empty. A removed admin keeps their row, so ADMIN_IDS (which adds only ids
 * it has never seen) does not bring them back at the next start; adding them again clears it.
 */
export const admins = pgTable(
  'admins',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id').notNull(),
    username: text('username'),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    removedAt: timestamp('removed_at', { withTimezone: true }),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('admins_user_id_idx').on(table.userId)],
);
