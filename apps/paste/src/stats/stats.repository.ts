import { parseRow, type Queryable } from '@app/db';
import { z } from 'zod';

// The statistics read counters kept by the statements that change what they count (the paste
// repository's inserts and views, the triggers of 0005_paste_stats.sql): reads only here.

const pasteAggregatesRow = z.object({
  totalPastes: z.number(),
  totalViews: z.number(),
  last30Days: z.number(),
  avgChars: z.number(),
  mostViewed: z.number(),
  bytes: z.number(),
  apiUsage: z.number(),
  encrypted: z.number(),
  attachmentBytes: z.number(),
});
export type PasteAggregates = z.infer<typeof pasteAggregatesRow>;

/**
 * Every statistic from the counters, without reading the pastes: the sums of paste_stats;
 * minus the pastes past their time limit that the job (every minute) has not deleted yet, an
 * index range over expires_at; plus, for last30Days, the pastes of the day the 30 days begin
 * in, an index range over created_at. A paste past its time limit is gone for everyone (410):
 * it counts as gone from the instant it expires, so the figures do not depend on when the
 * job runs. mostViewed is the top of pastes_views_count_idx. API usage counts creations and
 * never goes down.
 */
export async function pasteAggregates(db: Queryable): Promise<PasteAggregates> {
  const { rows } = await db.query(`
        WITH bound AS (
          SELECT now() - interval '30 days' AS since,
                 (((now() - interval '30 days') AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC' AS next_day,
                 ((now() - interval '30 days') AT TIME ZONE 'UTC')::date AS since_day),
        kept AS (
          SELECT coalesce(sum(s.pastes), 0) AS pastes, coalesce(sum(s.views), 0) AS views,
                 coalesce(sum(s.chars), 0) AS chars, coalesce(sum(s.bytes), 0) AS bytes, coalesce(sum(s.encrypted), 0) AS encrypted,
                 coalesce(sum(s.pastes) FILTER (WHERE s.day > bound.since_day), 0) AS recent
            FROM paste_stats s, bound),
        gone AS (
          SELECT count(*) AS pastes, coalesce(sum(p.views_count), 0) AS views,
                 coalesce(sum(char_length(p.content)), 0) AS chars, coalesce(sum(octet_length(p.content)), 0) AS bytes,
                 count(*) FILTER (WHERE p.encrypted) AS encrypted,
                 count(*) FILTER (WHERE p.created_at > bound.since) AS recent
            FROM pastes p, bound WHERE p.expires_at <= now()),
        -- The bounds are written out, not read from \`bound\`: the planner then estimates the
        -- range as one day's rows, not a tenth of the table (which made PostgreSQL JIT-compile
        -- the query, 20 ms of every read at a million pastes).
        edge AS (
          SELECT count(*) AS recent FROM pastes p
           WHERE p.created_at > now() - interval '30 days'
             AND p.created_at < (((now() - interval '30 days') AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC')
        SELECT (kept.pastes - gone.pastes)::int AS "totalPastes",
               (kept.views - gone.views)::bigint AS "totalViews",
               (kept.recent + edge.recent - gone.recent)::int AS "last30Days",
               CASE WHEN kept.pastes = gone.pastes THEN 0 ELSE round((kept.chars - gone.chars)::numeric / (kept.pastes - gone.pastes)) END::bigint AS "avgChars",
               coalesce((SELECT p.views_count FROM pastes p WHERE p.expires_at IS NULL OR p.expires_at > now()
                          ORDER BY p.views_count DESC LIMIT 1), 0)::int AS "mostViewed",
               (kept.bytes - gone.bytes)::bigint AS "bytes",
               (kept.encrypted - gone.encrypted)::int AS "encrypted",
               coalesce((SELECT sum(value) FROM paste_counters WHERE name LIKE 'api\\_usage:%'), 0)::bigint AS "apiUsage",
               -- The files of the pastes still readable (completed, not past their time limit).
               coalesce((SELECT sum(a.size) FROM paste_attachments a JOIN pastes p ON p.id = a.paste_id
                          WHERE a.uploaded AND (p.expires_at IS NULL OR p.expires_at > now())), 0)::bigint AS "attachmentBytes"
          FROM kept, gone, edge`);
  return parseRow(pasteAggregatesRow, rows);
}
