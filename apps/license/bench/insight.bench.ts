/**
 * Insight at scale (issue 57), run by hand: `npx tsx apps/license/bench/insight.bench.ts`
 * (ROWS=usage records, default 2,000,000; PostgreSQL at 127.0.0.1:5432, database
 * `bench_i57_insight`, made afresh). Seeds 20,000 licenses and ROWS usage records over 80 days
 * through the rollup trigger, times the analytics reads (median and p90 of 20 after 3
 * warm-ups), and the validation batch function with the rollup trigger on and off in alternating
 * rounds of one run (the ratio is its cost). Figures: docs/insight.md.
 */
import pg from 'pg';
import { runMigrations } from '@app/db';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrationsFolder } from './bench-app.js';

const url = 'postgresql://postgres@127.0.0.1:5432/bench_i57_insight';
const admin = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS bench_i57_insight');
await admin.query('CREATE DATABASE bench_i57_insight');
await admin.end();
const pool = new pg.Pool({ connectionString: url, max: 4 });
await runMigrations(drizzle(pool), migrationsFolder);
const L = 20_000;
const R = Number(process.env.ROWS ?? 2_000_000);
await pool.query(
  `INSERT INTO products (id, name, description, is_active, license_prefix) VALUES (md5('p')::uuid, 'P', 'd', true, 'P')`,
);
await pool.query(
  `INSERT INTO licenses (id, key, product_id, used_ips, used_hwids)
  SELECT md5('l' || n)::uuid, 'K-' || n, md5('p')::uuid, ARRAY['10.0.0.1'], ARRAY['hw-1'] FROM generate_series(1, $1::int) n`,
  [L],
);
const t0 = performance.now();
for (let done = 0; done < R; done += 500_000)
  await pool.query(
    `INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
    SELECT md5('l' || (1 + (u::bigint * 7919) % $2::int))::uuid, '203.0.113.' || (u % 250), 'hw-' || (u % 1000),
      CASE WHEN u % 20 = 0 THEN 'blocked' ELSE 'success' END, CASE WHEN u % 20 = 0 THEN 'IP limit exceeded' END,
      now() - ((u)::float8 / $3::int) * interval '80 days'
    FROM generate_series($1::int + 1, $1::int + 500000) u`,
    [done, L, R],
  );
console.log(`seeded ${R} usage rows through the trigger in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await pool.query('ANALYZE');
const sizes = await pool.query(
  `SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE relname LIKE 'usage_daily%' ORDER BY 1`,
);
console.log(sizes.rows);

const time = async (label: string, sql: string, values: unknown[], n = 20) => {
  for (let i = 0; i < 3; i++) await pool.query(sql, values);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await pool.query(sql, values);
    ms.push(performance.now() - s);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label}: median ${ms[n >> 1]!.toFixed(2)} ms, p90 ${ms[Math.floor(n * 0.9)]!.toFixed(2)} ms`);
  return ms[n >> 1]!;
};
const today = new Date().toISOString().slice(0, 10);
const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
await time(
  'analytics, all products, 30 days (outcomes)',
  `SELECT to_char(day, 'YYYY-MM-DD') AS day, outcome, sum(records)::bigint AS n FROM usage_daily_products WHERE day BETWEEN $1::date AND $2::date GROUP BY day, outcome`,
  [from, today],
);
await time(
  'analytics, all products, 30 days (devices)',
  `SELECT day, sum(machines), sum(addresses) FROM usage_daily_product_devices WHERE day BETWEEN $1::date AND $2::date GROUP BY day`,
  [from, today],
);
await time(
  'analytics, one product, 30 days',
  `SELECT day, outcome, sum(records) FROM usage_daily_products WHERE day BETWEEN $1::date AND $2::date AND product_id = md5('p')::uuid GROUP BY day, outcome`,
  [from, today],
);
await time(
  'analytics, one license, 30 days',
  `SELECT day, outcome, sum(records) FROM usage_daily WHERE day BETWEEN $1::date AND $2::date AND license_id = md5('l1')::uuid GROUP BY day, outcome`,
  [from, today],
);
await time(
  'top 5 licenses, 30 days',
  `SELECT license_id, sum(records) FROM usage_daily WHERE day BETWEEN $1::date AND $2::date AND license_id IS NOT NULL GROUP BY license_id ORDER BY sum(records) DESC LIMIT 5`,
  [from, today],
);

// Validation cost: the batch function on the common path (known IP and hwid), batches of 1 and 16,
// with the rollup trigger on and off, alternating rounds in one run.
const call = (keys: string[]) =>
  pool.query(
    'SELECT * FROM license_validate_batch_v3($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz)',
    [keys, keys.map(() => '10.0.0.1'), keys.map(() => 'hw-1'), keys.map(() => null), new Date()],
  );
for (const size of [1, 16]) {
  const totals = { on: 0, off: 0 };
  for (let round = 0; round < 6; round++) {
    for (const mode of ['on', 'off'] as const) {
      await pool.query(
        `ALTER TABLE usage_records ${mode === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER usage_daily_inserted`,
      );
      const s = performance.now();
      for (let i = 0; i < 300; i++) await call(Array.from({ length: size }, (_, k) => `K-${1 + ((i * 16 + k) % L)}`));
      totals[mode] += performance.now() - s;
    }
  }
  await pool.query('ALTER TABLE usage_records ENABLE TRIGGER usage_daily_inserted');
  const per = (ms: number) => ms / 1800;
  console.log(
    `validate batch of ${size}: trigger on ${per(totals.on).toFixed(3)} ms/call, off ${per(totals.off).toFixed(3)} ms/call, ratio ${(totals.on / totals.off).toFixed(2)}`,
  );
}
await pool.end();
