import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

// The daily rollups (usage-daily.table.ts, usage-rollup.table.ts): validations are queued by the
// trigger of migration 0025_usage_rollup_queue.sql in their own transaction and folded in here,
// by usage_rollup_fold_v1, outside it. Days are UTC dates as `YYYY-MM-DD` text.

/** Whose validations: every product's (unknown keys too), one product's, or one license's. */
export type RollupScope = { productId?: string; licenseId?: string };

export interface DayRollup {
  date: string;
  ok: number;
  refused: Record<string, number>;
  machines: number;
  addresses: number;
}

const outcomeRow = z.object({ day: z.string(), outcome: z.string(), n: z.number() });
const deviceRow = z.object({ day: z.string(), machines: z.number(), addresses: z.number() });

function scopeFilter(scope: RollupScope, params: unknown[]): string {
  if (scope.licenseId) return ` AND license_id = $${params.push(scope.licenseId)}`;
  if (scope.productId) return ` AND product_id = $${params.push(scope.productId)}`;
  return '';
}

/** Every day of [from, to] (both included), with zeros where nothing was validated. */
export async function dailyRollups(
  db: Queryable,
  scope: RollupScope,
  range: { from: string; to: string },
): Promise<DayRollup[]> {
  const params: unknown[] = [range.from, range.to];
  const filter = scopeFilter(scope, params);
  // One license: its own rows; a product or every product: the per-product rollups (a few rows a day).
  const [outcomeTable, deviceTable] = scope.licenseId
    ? ['usage_daily', 'usage_daily_devices']
    : ['usage_daily_products', 'usage_daily_product_devices'];
  const [outcomes, devices] = await Promise.all([
    db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, outcome, sum(records)::bigint AS n FROM ${outcomeTable}
        WHERE day BETWEEN $1::date AND $2::date${filter} GROUP BY day, outcome`,
      params,
    ),
    db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(machines)::bigint AS machines, sum(addresses)::bigint AS addresses
         FROM ${deviceTable} WHERE day BETWEEN $1::date AND $2::date${filter} GROUP BY day`,
      params,
    ),
  ]);
  const days = new Map<string, DayRollup>();
  for (let at = Date.parse(`${range.from}T00:00:00Z`); at <= Date.parse(`${range.to}T00:00:00Z`); at += 86_400_000) {
    const date = new Date(at).toISOString().slice(0, 10);
    days.set(date, { date, ok: 0, refused: {}, machines: 0, addresses: 0 });
  }
  for (const row of parseRows(outcomeRow, outcomes.rows)) {
    const day = days.get(row.day);
    if (!day || row.n === 0) continue;
    if (row.outcome === '') day.ok += row.n;
    else day.refused[row.outcome] = (day.refused[row.outcome] ?? 0) + row.n;
  }
  for (const row of parseRows(deviceRow, devices.rows)) {
    const day = days.get(row.day);
    if (!day) continue;
    day.machines = row.machines;
    day.addresses = row.addresses;
  }
  return [...days.values()];
}

/** Queued records one fold takes at most (one transaction); a fold repeats until the queue is empty. */
const foldChunk = 50_000;

/**
 * Folds the queued usage records into the rollups, the sharing flags and the top licenses' window
 * (the 30 UTC days ending on the day of `at`), and answers how many. `wait`: wait for a fold in progress and fold
 * what is left after it (a read that must see every committed validation); without it, a fold in
 * progress elsewhere is left to do the work (the periodic job).
 */
export async function foldUsageRollups(db: Queryable, at: Date, wait: boolean): Promise<number> {
  const today = at.toISOString().slice(0, 10);
  let total = 0;
  for (;;) {
    const { rows } = await db.query('SELECT usage_rollup_fold_v1($1::date, $2::int, $3::boolean) AS folded', [
      today,
      foldChunk,
      wait,
    ]);
    const folded = Number((rows[0] as { folded: number }).folded);
    total += folded;
    if (folded < foldChunk) return total;
  }
}

const topRow = z.object({ license_id: z.string(), ok: z.number(), refused: z.number() });
export type TopLicense = z.infer<typeof topRow>;

/** The licenses validated most in [from, to] (successes and refusals), most first. */
export async function topLicenses(
  db: Queryable,
  scope: { productId?: string },
  range: { from: string; to: string },
  limit: number,
): Promise<TopLicense[]> {
  const params: unknown[] = [range.from, range.to];
  const filter = scopeFilter(scope, params);
  const { rows } = await db.query(
    `SELECT license_id, coalesce(sum(records) FILTER (WHERE outcome = ''), 0)::bigint AS ok,
            coalesce(sum(records) FILTER (WHERE outcome <> ''), 0)::bigint AS refused
       FROM usage_daily WHERE day BETWEEN $1::date AND $2::date AND license_id IS NOT NULL${filter}
      GROUP BY license_id ORDER BY sum(records) DESC, license_id LIMIT $${params.push(limit)}`,
    params,
  );
  return parseRows(topRow, rows);
}

/**
 * The licenses validated most in the 30 days ending `to`, from the window the fold keeps
 * (usage_license_window, read down its total index), or undefined when the window ends on
 * another day (the caller ranks the rollups instead).
 */
export async function topLicensesOfWindow(
  db: Queryable,
  scope: { productId?: string },
  to: string,
  limit: number,
): Promise<TopLicense[] | undefined> {
  const params: unknown[] = [to, limit];
  const product = scope.productId ? ` AND w.product_id = $${params.push(scope.productId)}` : '';
  const { rows } = await db.query(
    `SELECT w.license_id, w.ok, w.refused
       FROM usage_license_window_state s LEFT JOIN LATERAL (
         SELECT license_id, ok, refused, total FROM usage_license_window w WHERE true${product}
          ORDER BY w.total DESC, w.license_id LIMIT $2) w ON true
      WHERE s.id AND s.last_day = $1::date ORDER BY w.total DESC, w.license_id`,
    params,
  );
  if (rows.length === 0) return undefined;
  return parseRows(
    topRow,
    rows.filter((row) => (row as { license_id: unknown }).license_id !== null),
  );
}
