import { encodeListCursor, type ListCursor } from './list-cursor.js';
import type { Queryable } from '@app/db';
import { listPastes } from './moderation.repository.js';
import { DEFAULT_LIST_LIMIT, type PasteList } from './moderation.schema.js';

export interface ListPastesInput {
  q?: string;
  limit?: number;
  cursor?: ListCursor;
}

/** The owner's view of every paste: listing and searching (deleting goes through DELETE /api/paste/:slug). */
export function createModerationService(deps: { db: Queryable }) {
  return {
    /** A page of pastes, newest first; nextCursor is null on the last page. */
    async list(input: ListPastesInput): Promise<PasteList> {
      const limit = input.limit ?? DEFAULT_LIST_LIMIT;
      const search = input.q?.trim() || undefined;
      // One row more than asked tells whether another page follows.
      const rows = await listPastes(deps.db, { search, after: input.cursor, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        pastes: page.map((row) => ({
          slug: row.slug,
          title: row.title,
          createdAt: row.createdAt.toISOString(),
          size: row.size,
          viewsCount: row.viewsCount,
          maxViews: row.maxViews,
          expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
          passwordProtected: row.passwordProtected,
          encrypted: row.encrypted,
        })),
        nextCursor: rows.length > limit && last ? encodeListCursor({ createdAt: last.cursorAt, id: last.id }) : null,
      };
    },
  };
}

export type ModerationService = ReturnType<typeof createModerationService>;
