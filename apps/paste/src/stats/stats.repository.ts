import type { Queryable } from '@app/db';

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

export interface PasteAggregates {
  totalPastes: number;
  totalViews: number;
  last30Days: number;
  avgChars: number;
  mostViewed: number;
  bytes: number;
  apiUsage: number;
}

export function createStatsRepository(db: Queryable) {
  return {
    /**
     * Every statistic in one scan of the pastes table; no paste is loaded into the process.
     * A paste past its time limit is gone for everyone (410) and is deleted by a job within a
     * minute: it counts as gone from the instant it expires, so the figures do not depend on
     * when that job runs. API usage counts creations and never goes down.
     */
    async aggregates(): Promise<PasteAggregates> {
      const { rows } = await db.query<PasteAggregates>(`
        SELECT count(*)::int AS "totalPastes",
               coalesce(sum(views_count), 0)::bigint AS "totalViews",
               (count(*) FILTER (WHERE created_at > now() - interval '30 days'))::int AS "last30Days",
               coalesce(round(avg(char_length(content))), 0)::bigint AS "avgChars",
               coalesce(max(views_count), 0)::int AS "mostViewed",
               coalesce(sum(octet_length(content)), 0)::bigint AS "bytes",
               coalesce((SELECT sum(value) FROM paste_counters WHERE name LIKE 'api\\_usage:%'), 0)::bigint AS "apiUsage"
          FROM pastes WHERE expires_at IS NULL OR expires_at > now()`);
      return rows[0]!;
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
