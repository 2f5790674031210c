import { bigint, boolean, index, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The files of pastes (migration 0010): the bytes are in the object store under `pastes/<id>`.
 * No foreign key: a row outlives its paste until the cleanup job has removed its object.
 */
export const attachmentsTable = pgTable(
  'paste_attachments',
  {
    id: text('id').primaryKey(),
    pasteId: bigint('paste_id', { mode: 'number' }).notNull(),
    position: smallint('position').notNull(),
    /** Bytes as stored (for an encrypted paste, the encrypted file's size). */
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Only on plain pastes: an encrypted paste keeps names and types inside its ciphertext. */
    name: text('name'),
    type: text('type'),
    /** The paste was completed: its bytes were found in the store at the declared size. */
    uploaded: boolean('uploaded').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** When the last download URL handed out lapses; the object stays at least until then. */
    urlsUntil: timestamp('urls_until', { withTimezone: true }),
  },
  (table) => [index('paste_attachments_paste_id_idx').on(table.pasteId)],
);
