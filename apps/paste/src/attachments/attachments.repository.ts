import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { attachmentsTable } from './attachments.table.js';

type AttachmentRow = typeof attachmentsTable.$inferSelect;

export type NewAttachment = Pick<AttachmentRow, 'id' | 'position' | 'size' | 'name' | 'type'>;
export type StoredAttachment = Pick<AttachmentRow, 'id' | 'size' | 'name' | 'type'>;

const storedRow: z.ZodType<StoredAttachment> = z.object({
  id: z.string(),
  size: z.coerce.number(),
  name: z.string().nullable(),
  type: z.string().nullable(),
});
const idRow = z.object({ id: z.string() });

/**
 * How long after its paste's last view an attachment of a used-up paste is kept: the download
 * URLs that view handed out work for 10 minutes.
 */
export const URL_LIFETIME_SQL = "interval '10 minutes'";

export async function insertAttachments(db: Queryable, pasteId: number, rows: NewAttachment[]): Promise<void> {
  await db.query(
    `INSERT INTO paste_attachments (id, paste_id, position, size, name, type)
       SELECT u.id, $1, u.position, u.size, u.name, u.type
         FROM unnest($2::text[], $3::smallint[], $4::bigint[], $5::text[], $6::text[]) AS u(id, position, size, name, type)`,
    [
      pasteId,
      rows.map((row) => row.id),
      rows.map((row) => row.position),
      rows.map((row) => row.size),
      rows.map((row) => row.name),
      rows.map((row) => row.type),
    ],
  );
}

/** A paste's attachments in the order they were declared. */
export async function attachmentsOf(db: Queryable, pasteId: number): Promise<StoredAttachment[]> {
  const { rows } = await db.query(
    'SELECT id, size, name, type FROM paste_attachments WHERE paste_id = $1 ORDER BY position',
    [pasteId],
  );
  return parseRows(storedRow, rows);
}

export async function markUploaded(db: Queryable, pasteId: number): Promise<void> {
  await db.query('UPDATE paste_attachments SET uploaded = true WHERE paste_id = $1', [pasteId]);
}

/**
 * A counted view hands out download URLs: the objects stay at least until they lapse. One
 * statement: the attachments, in order, with their lapse recorded.
 */
export async function handOutUrls(db: Queryable, pasteId: number): Promise<StoredAttachment[]> {
  const { rows } = await db.query(
    `WITH handed AS (
       UPDATE paste_attachments SET urls_until = greatest(coalesce(urls_until, now()), now() + ${URL_LIFETIME_SQL})
        WHERE paste_id = $1 RETURNING id, size, name, type, position)
     SELECT id, size, name, type FROM handed ORDER BY position`,
    [pasteId],
  );
  return parseRows(storedRow, rows);
}

/**
 * Attachments whose objects are to be removed: their paste is gone (deleted, or deleted by the
 * expiry and auto-delete jobs), past its time limit, or used up by its last view more than the
 * URL lifetime ago; and no download URL handed out still works.
 */
export async function dueForRemoval(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT a.id FROM paste_attachments a LEFT JOIN pastes p ON p.id = a.paste_id
      WHERE (a.urls_until IS NULL OR a.urls_until <= now())
        AND (p.id IS NULL
             OR (p.expires_at IS NOT NULL AND p.expires_at <= now())
             OR (p.max_views IS NOT NULL AND p.views_count >= p.max_views
                 AND coalesce(p.last_viewed_at, p.created_at) <= now() - ${URL_LIFETIME_SQL}))
      LIMIT $1`,
    [limit],
  );
  return parseRows(idRow, rows).map((row) => row.id);
}

export async function deleteAttachment(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM paste_attachments WHERE id = $1', [id]);
}

/** Which of `ids` have a row. */
export async function existingIds(db: Queryable, ids: string[]): Promise<Set<string>> {
  const { rows } = await db.query('SELECT id FROM paste_attachments WHERE id = ANY($1::text[])', [ids]);
  return new Set(parseRows(idRow, rows).map((row) => row.id));
}
