import type { Queryable } from '@app/db';

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
    /** Every statistic in one scan of the pastes table; no paste is loaded into the process. */
    async aggregates(): Promise<PasteAggregates> {
      const { rows } = await db.query<PasteAggregates>(`
        SELECT count(*)::int AS "totalPastes",
               coalesce(sum(views_count), 0)::bigint AS "totalViews",
               (count(*) FILTER (WHERE created_at > now() - interval '30 days'))::int AS "last30Days",
               coalesce(round(avg(char_length(content))), 0)::bigint AS "avgChars",
               coalesce(max(views_count), 0)::int AS "mostViewed",
               coalesce(sum(octet_length(content)), 0)::bigint AS "bytes",
               coalesce((SELECT sum(value) FROM paste_counters WHERE name LIKE 'api\\_usage:%'), 0)::bigint AS "apiUsage"
          FROM pastes`);
      return rows[0]!;
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
