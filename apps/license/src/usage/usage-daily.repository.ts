import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

// Reads of the daily rollups (usage-daily.table.ts), kept by the trigger of migration
// 0022_usage_insight.sql as validations are recorded. Days are UTC dates as `YYYY-MM-DD` text.

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
