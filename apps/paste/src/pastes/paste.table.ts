import { sql } from 'drizzle-orm';
import { bigserial, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const pastesTable = pgTable('pastes', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  slug: text('slug').notNull().unique(),
  content: text('content').notNull(),
  /** bcrypt hash; NULL when the paste has no password. */
  passwordHash: text('password_hash'),
  /** NULL: no view limit. */
  maxViews: integer('max_views'),
  viewsCount: integer('views_count').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  lastViewedAt: timestamp('last_viewed_at', { withTimezone: true }),
  /** SHA-256 (hex) of the paste's delete token; NULL for pastes made before delete tokens existed (only the owner deletes them). */
  deleteTokenHash: text('delete_token_hash'),
}, (table) => [
  index('pastes_created_at_idx').on(table.createdAt),
  // The auto-delete job looks pastes up by their last activity.
  index('pastes_last_activity_idx').on(sql`coalesce(${table.lastViewedAt}, ${table.createdAt})`),
]);
