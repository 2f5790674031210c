import pg from 'pg';
import type { Queryable } from '@app/db';

/** API usage is counted over this many rows, so concurrent API requests rarely wait on one row's lock. */
export const API_USAGE_SHARDS = 16;

export interface NewPaste {
  slug: string;
  content: string;
  passwordHash: string | null;
  maxViews: number | null;
}

export interface ViewedPaste {
  id: number;
  slug: string;
  content: string;
  viewsCount: number;
  maxViews: number | null;
  createdAt: Date;
  hasPassword: boolean;
}

/** Why a view counted nothing: the paste is missing, used up, or waits for its password. */
export type MissedView = 'not_found' | 'expired' | 'locked';

const viewColumns = `id, slug, content, views_count AS "viewsCount", max_views AS "maxViews",
  created_at AS "createdAt", password_hash IS NOT NULL AS "hasPassword"`;

export function createPasteRepository(db: Queryable) {
  /** The paste's state without counting a view. */
  const state = async (slug: string): Promise<'not_found' | 'expired' | 'viewable'> => {
    const { rows } = await db.query<{ expired: boolean }>(
      'SELECT max_views IS NOT NULL AND views_count >= max_views AS expired FROM pastes WHERE slug = $1', [slug]);
    if (!rows[0]) return 'not_found';
    return rows[0].expired ? 'expired' : 'viewable';
  };

  return {
    state,

    /**
     * Inserts unless the slug is taken (then `undefined`, and the caller draws another slug).
     * `countApiUsage` adds one to the API usage counter in the same statement.
     */
    async insert(paste: NewPaste, countApiUsage: boolean): Promise<{ slug: string } | undefined> {
      const values: unknown[] = [paste.slug, paste.content, paste.passwordHash, paste.maxViews];
      let usage = '';
      if (countApiUsage) {
        values.push(`api_usage:${Math.floor(Math.random() * API_USAGE_SHARDS)}`);
        usage = `, usage AS (INSERT INTO paste_counters (name, value) SELECT $5::text, 1 FROM inserted
             ON CONFLICT (name) DO UPDATE SET value = paste_counters.value + 1)`;
      }
      // Named: each connection parses and plans the statement once.
      const { rows } = await db.query<{ slug: string }>({
        name: countApiUsage ? 'paste-insert-api' : 'paste-insert',
        text: `WITH inserted AS (
           INSERT INTO pastes (slug, content, password_hash, max_views) VALUES ($1, $2, $3, $4)
           ON CONFLICT (slug) DO NOTHING RETURNING slug)${usage}
         SELECT slug FROM inserted`,
        values,
      });
      return rows[0];
    },

    /**
     * One view: the check (not used up, not locked) and the increment are one statement, so
     * concurrent views can never show a paste more often than maxViews allows.
     *
     * Views of one paste all update one row, so each waits for the previous one's commit. The
     * commit of a view does not wait for the disk flush (`synchronous_commit = off`, for this
     * transaction only): a crash may forget the last fraction of a second of view counts, which
     * is worth the several-fold throughput for a popular paste. The SET and the UPDATE go as one
     * simple-protocol message (one round trip, one implicit transaction), which carries no
     * parameters, hence the escaped literal.
     */
    async view(slug: string, unlocked: boolean): Promise<ViewedPaste | undefined> {
      const results = await db.query(
        `SET LOCAL synchronous_commit = off;
         UPDATE pastes SET views_count = views_count + 1, last_viewed_at = now()
          WHERE slug = ${pg.escapeLiteral(slug)} AND (max_views IS NULL OR views_count < max_views)
            AND (password_hash IS NULL OR ${unlocked ? 'true' : 'false'})
          RETURNING ${viewColumns}`) as unknown as pg.QueryResult<ViewedPaste>[];
      return results[1]?.rows[0];
    },

    /** After a view counted nothing: tells why. Expired wins over locked. */
    async whyNotViewed(slug: string): Promise<MissedView> {
      const found = await state(slug);
      return found === 'viewable' ? 'locked' : found;
    },

    async findPasswordHash(slug: string): Promise<{ passwordHash: string | null } | undefined> {
      const { rows } = await db.query<{ passwordHash: string | null }>(
        'SELECT password_hash AS "passwordHash" FROM pastes WHERE slug = $1', [slug]);
      return rows[0];
    },

    async deleteAll(): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM pastes');
      return rowCount ?? 0;
    },

    /** Deletes pastes whose last view (their creation when never viewed) is older than `days`. */
    async deleteInactive(days: number): Promise<number> {
      const { rowCount } = await db.query(
        `DELETE FROM pastes WHERE coalesce(last_viewed_at, created_at) < now() - make_interval(days => $1)`, [days]);
      return rowCount ?? 0;
    },
  };
}

export type PasteRepository = ReturnType<typeof createPasteRepository>;
