import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';

export const pastesTable = pgTable(
  'pastes',
  {
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
    /** Up to 200 characters; NULL when the creator gave none. */
    title: text('title'),
    /** `auto`, `plaintext`, `markdown` or a highlight.js language name. */
    language: text('language').notNull().default('auto'),
    /** NULL: no time limit. Past it the paste answers 410 and the scheduled job deletes it. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** The paste page shows a "Show paste" button first, so that link previews never see the content. */
    revealOnClick: boolean('reveal_on_click').notNull().default(false),
    /** Fetches by link-preview agents and HEAD requests, which never count as views. */
    previewFetches: integer('preview_fetches').notNull().default(0),
    /** `content` is the envelope of an end-to-end encrypted paste (JSON of v, iv, salt?, ciphertext): the server cannot read it. */
    encrypted: boolean('encrypted').notNull().default(false),
    /** How many files the paste carries (set when it is completed; 0 for none). */
    attachments: smallint('attachments').notNull().default(0),
  },
  (table) => [
    // Newest first, with the id as tie-breaker: the owner's list pages through it by (created_at, id).
    index('pastes_created_at_id_idx').on(table.createdAt, table.id),
    // The auto-delete job looks pastes up by their last activity.
    // The scheduled job finds pastes past their time limit.
    index('pastes_expires_at_idx')
      .on(table.expiresAt)
      .where(sql`${table.expiresAt} is not null`),
    index('pastes_last_activity_idx').on(sql`coalesce(${table.lastViewedAt}, ${table.createdAt})`),
  ],
);
