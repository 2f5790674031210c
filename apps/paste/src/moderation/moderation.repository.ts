import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { ListCursor } from './list-cursor.js';

/** One row of the owner's list: what a paste is, never its content or password hash. */
const pasteListRow = z.object({
  id: z.number(),
  slug: z.string(),
  title: z.string().nullable(),
  createdAt: z.date(),
  /** UTF-8 bytes of the content; of an encrypted paste, of its ciphertext. */
  size: z.number(),
  viewsCount: z.number(),
  maxViews: z.number().nullable(),
  expiresAt: z.date().nullable(),
  passwordProtected: z.boolean(),
  /** End-to-end encrypted: the title is inside the ciphertext, unknown here (null). */
  encrypted: z.boolean(),
  /** created_at with its microseconds, as the cursor keeps it. */
  cursorAt: z.string(),
});
export type PasteListRow = z.infer<typeof pasteListRow>;

export interface PasteListQuery {
  /** Part of the slug or title, any case. */
  search?: string;
  /** Rows after this one (newest first). */
  after?: ListCursor;
  limit: number;
}

/**
 * Reads for the owner's moderation list (the table's writes stay in pastes.repository.ts).
 * Newest first by (created_at, id), which index pastes_created_at_id_idx serves in order, so a
 * page reads about `limit` rows; a search filters while walking that index. octet_length reads
 * the stored size without decompressing the content.
 */
export async function listPastes(db: Queryable, query: PasteListQuery): Promise<PasteListRow[]> {
  const { rows } = await db.query(
    `SELECT id, slug, title, created_at AS "createdAt", views_count AS "viewsCount",
                -- An envelope's ciphertext is unpadded base64url: 3 bytes per 4 characters.
                octet_length(content) AS size,
                max_views AS "maxViews", expires_at AS "expiresAt", password_hash IS NOT NULL AS "passwordProtected", encrypted,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
           FROM pastes
          WHERE ($1::text IS NULL OR strpos(lower(slug), lower($1)) > 0 OR strpos(lower(coalesce(title, '')), lower($1)) > 0)
            AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::bigint))
          ORDER BY created_at DESC, id DESC
          LIMIT $4`,
    [query.search ?? null, query.after?.createdAt ?? null, query.after?.id ?? null, query.limit],
  );
  return parseRows(pasteListRow, rows);
}
