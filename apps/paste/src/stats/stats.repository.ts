import { parseRow, type Queryable } from '@app/db';
import { z } from 'zod';

/** API usage is counted over this many rows, so concurrent API requests rarely wait on one row's lock. */
export const API_USAGE_SHARDS = 16;

/** The counter row one increment of API usage goes to. */
export const apiUsageShard = () => `api_usage:${Math.floor(Math.random() * API_USAGE_SHARDS)}`;

/**
 * The statement that adds the API pastes just inserted to a shard of the API usage counter. The
 * paste repository runs it as a CTE of its insert, so a batch of pastes and its count are one
 * statement (one round trip on the creation path); the counters' SQL stays here, with their owner.
 * `inserted` names the CTE of inserted rows (with `slug`); `slugs` and `counted` are the
 * parameters of the batch's slugs and whether each counts; `shard` the parameter of the row name.
 */
export function countApiUsageSql(refs: { inserted: string; slugs: string; counted: string; shard: string }): string {
  return `INSERT INTO paste_counters (name, value)
             SELECT ${refs.shard}::text, count(*) FROM ${refs.inserted} JOIN unnest(${refs.slugs}::text[], ${refs.counted}::boolean[]) AS api(slug, counted) USING (slug)
              WHERE api.counted HAVING count(*) > 0
             ON CONFLICT (name) DO UPDATE SET value = paste_counters.value + EXCLUDED.value`;
}

/**
 * The statement that adds the views just counted to the statistics (paste_stats). The paste
 * repository runs it as a CTE of its view statements, so a batch of views and its count are one
 * statement; inserts and deletes are counted by the table's triggers (0005_paste_stats.sql).
 * `viewed` names the CTE of updated rows, with `created_at` and `added`, the views each added.
 * The shard is drawn per statement; rows go in day order, so two statements never wait on each
 * other's counter rows in opposite orders.
 */
export function countViewsSql(refs: { viewed: string }): string {
  return `INSERT INTO paste_stats AS s (day, shard, views)
             SELECT (v.created_at AT TIME ZONE 'UTC')::date, floor(random() * 8)::smallint, sum(v.added)
               FROM ${refs.viewed} v GROUP BY 1 HAVING sum(v.added) <> 0 ORDER BY 1
             ON CONFLICT (day, shard) DO UPDATE SET views = s.views + EXCLUDED.views`;
}

const pasteAggregatesRow = z.object({
  totalPastes: z.number(),
  totalViews: z.number(),
  last30Days: z.number(),
  avgChars: z.number(),
  mostViewed: z.number(),
  bytes: z.number(),
  apiUsage: z.number(),
  encrypted: z.number(),
});
export type PasteAggregates = z.infer<typeof pasteAggregatesRow>;

export function createStatsRepository(db: Queryable) {
  return {
    /**
     * Every statistic from the counters, without reading the pastes: the sums of paste_stats;
     * minus the pastes past their time limit that the job (every minute) has not deleted yet, an
     * index range over expires_at; plus, for last30Days, the pastes of the day the 30 days begin
     * in, an index range over created_at. A paste past its time limit is gone for everyone (410):
     * it counts as gone from the instant it expires, so the figures do not depend on when the
     * job runs. mostViewed is the top of pastes_views_count_idx. API usage counts creations and
     * never goes down.
     */
    async aggregates(): Promise<PasteAggregates> {
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
               coalesce((SELECT sum(value) FROM paste_counters WHERE name LIKE 'api\\_usage:%'), 0)::bigint AS "apiUsage"
          FROM kept, gone, edge`);
      return parseRow(pasteAggregatesRow, rows);
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
