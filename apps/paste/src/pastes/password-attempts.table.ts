import { bigint, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { pastesTable } from './pastes.table.js';

/**
 * Wrong passwords per paste in the current fixed window (wave 3). No longer read or written since
 * wave 4, where only the count per paste and address remains; kept until a migration drops it.
 */
export const pastePasswordAttemptsTable = pgTable('paste_password_attempts', {
  pasteId: bigint('paste_id', { mode: 'number' })
    .primaryKey()
    .references(() => pastesTable.id, { onDelete: 'cascade' }),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
  failures: integer('failures').notNull(),
});

/**
 * Wrong passwords per paste and client address in the address's current fixed window
 * (migration 0006). Deleted with its paste, and by the expiry job once the window is over.
 */
export const pastePasswordAttemptsByAddressTable = pgTable(
  'paste_password_attempts_by_address',
  {
    pasteId: bigint('paste_id', { mode: 'number' })
      .notNull()
      .references(() => pastesTable.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
    failures: integer('failures').notNull(),
  },
  (table) => [
    primaryKey({ name: 'paste_password_attempts_by_address_pk', columns: [table.pasteId, table.address] }),
    index('paste_password_attempts_by_address_window_idx').on(table.windowStartedAt),
  ],
);
