import { bigint, integer, pgTable, timestamp } from 'drizzle-orm/pg-core';
import { pastesTable } from './paste.table.js';

/**
 * Wrong passwords per paste in the current fixed window (it starts at the window's first wrong
 * attempt). One row per paste that has had one; deleted with its paste.
 */
export const pastePasswordAttemptsTable = pgTable('paste_password_attempts', {
  pasteId: bigint('paste_id', { mode: 'number' }).primaryKey().references(() => pastesTable.id, { onDelete: 'cascade' }),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
  failures: integer('failures').notNull(),
});
