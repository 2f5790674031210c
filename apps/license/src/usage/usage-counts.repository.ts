import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

export interface UsageCounts {
  total: number;
  success: number;
  blocked: number;
  invalid: number;
}

/** Attempts of one status (`sum(...)::bigint`, a number as @app/db reads int8). */
const statusCountRow = z.object({ status: z.string(), n: z.number() });

const HOUR = 3_600_000;
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR) * HOUR);

/**
 * Validation attempts with `from < created_at <= to` (either end open when undefined), by
 * status: the whole hours inside the window from usage_counts (kept by triggers, see migration
 * 0009_license_counts.sql), and the rows of the partial hours at its ends by index ranges over
 * usage_records.created_at, so the answer is exact however wide the window is.
 */
export async function usageCountsBetween(db: Queryable, window: { from?: Date; to?: Date }): Promise<UsageCounts> {
  const { from, to } = window;
  // Whole hours: those starting at or after fullFrom and ending at or before fullTo.
  const fullFrom = from ? new Date(hourOf(from).getTime() + HOUR) : null;
  const fullTo = to ? hourOf(to) : null;
  const edges: string[] = [];
  const params: unknown[] = [fullFrom, fullTo];
  const range = (lower: string, upper: string, values: unknown[]) => {
    const at = params.length;
    params.push(...values);
    const sql = [lower, upper]
      .filter(Boolean)
      .map((part) => part.replace(/\?(\d)/g, (_, n: string) => `$${at + Number(n)}`));
    edges.push(`SELECT status, count(*) AS n FROM usage_records WHERE ${sql.join(' AND ')} GROUP BY status`);
  };
  if (from && to && hourOf(from).getTime() === hourOf(to).getTime()) {
    range('created_at > ?1', 'created_at <= ?2', [from, to]);
  } else {
    if (from) range('created_at > ?1', 'created_at < ?2', [from, fullFrom]);
    if (to) range('created_at >= ?1', 'created_at <= ?2', [fullTo, to]);
  }
  const { rows } = await db.query(
    `SELECT status, sum(n)::bigint AS n FROM (
       SELECT status, sum(records) AS n FROM usage_counts
        WHERE ($1::timestamptz IS NULL OR hour >= $1) AND ($2::timestamptz IS NULL OR hour < $2) GROUP BY status
       ${edges.map((edge) => `UNION ALL ${edge}`).join('\n       ')}) parts
     GROUP BY status`,
    params,
  );
  const counts: UsageCounts = { total: 0, success: 0, blocked: 0, invalid: 0 };
  for (const { status, n } of parseRows(statusCountRow, rows)) {
    counts.total += n;
    if (status === 'success' || status === 'blocked' || status === 'invalid') counts[status] += n;
  }
  return counts;
}
