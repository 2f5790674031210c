/**
 * Insight at scale (issue 57), run by hand: `npx tsx apps/license/bench/insight.bench.ts`
 * (ROWS=usage records, default 2,000,000; PostgreSQL at 127.0.0.1:5432, database
 * `bench_i57_insight`, made afresh). Seeds 20,000 licenses and ROWS usage records over 80 days
 * through the rollup queue and the fold, times the analytics reads (median and p90 of 20 after 3
 * warm-ups), and the validation batch function in alternating rounds of one run with: no rollup
 * trigger, the queue's trigger (migration 0024, this release), and 0022's trigger that upserted
 * the rollups in the validation's transaction (the previous release); the ratios are their cost.
 * ROUNDS (default 6) rounds of 300 calls per mode and batch size. Figures: docs/insight.md.
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
console.log(`seeded ${R} usage rows through the queue in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const fold = async () => {
  let folded = 0;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT usage_rollup_fold_v1((now() AT TIME ZONE 'UTC')::date, 50000, true) AS n`,
    );
    folded += rows[0]!.n;
    if (rows[0]!.n < 50_000) return folded;
  }
};
const t1 = performance.now();
const folded = await fold();
console.log(`folded ${folded} queued rows in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
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
  'top 5 licenses, 30 days, ranking usage_daily',
  `SELECT license_id, sum(records) FROM usage_daily WHERE day BETWEEN $1::date AND $2::date AND license_id IS NOT NULL GROUP BY license_id ORDER BY sum(records) DESC LIMIT 5`,
  [from, today],
);
await time(
  'top 5 licenses, 30 days, kept by the fold',
  `SELECT license_id, ok, refused FROM usage_license_window ORDER BY total DESC, license_id LIMIT 5`,
  [],
);

// Validation cost: the batch function on the common path (known IP and hwid), batches of 1 and 16
// distinct licenses, with no rollup trigger, the queue's trigger, and 0022's trigger (its function
// is still defined), in alternating rounds of one run. The queue is folded between rounds (untimed).
const call = (keys: string[]) =>
  pool.query(
    'SELECT * FROM license_validate_batch_v3($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz)',
    [keys, keys.map(() => '10.0.0.1'), keys.map(() => 'hw-1'), keys.map(() => null), new Date()],
  );
await pool.query(
  `CREATE TRIGGER usage_daily_inserted AFTER INSERT ON usage_records REFERENCING NEW TABLE AS usage_daily_new
     FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_inserted()`,
);
const modes = { none: [], queue: ['usage_rollup_enqueued'], upsert: ['usage_daily_inserted'] } as const;
const rounds = Number(process.env.ROUNDS ?? 6);
for (const size of [1, 16]) {
  const totals = { none: 0, queue: 0, upsert: 0 };
  const perRound: Record<keyof typeof modes, number[]> = { none: [], queue: [], upsert: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of Object.keys(modes) as Array<keyof typeof modes>) {
      for (const trigger of ['usage_rollup_enqueued', 'usage_daily_inserted'])
        await pool.query(
          `ALTER TABLE usage_records ${(modes[mode] as readonly string[]).includes(trigger) ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`,
        );
      await fold();
      const s = performance.now();
      for (let i = 0; i < 300; i++) await call(Array.from({ length: size }, (_, k) => `K-${1 + ((i * 16 + k) % L)}`));
      const ms = performance.now() - s;
      totals[mode] += ms;
      perRound[mode].push(ms / 300);
    }
  }
  const per = (ms: number) => (ms / (300 * rounds)).toFixed(3);
  const ratios = (mode: 'queue' | 'upsert') =>
    perRound[mode].map((ms, round) => ms / perRound.none[round]!).sort((a, b) => a - b);
  const range = (values: number[]) => `${values[0]!.toFixed(3)}-${values.at(-1)!.toFixed(3)}`;
  console.log(
    `validate batch of ${size}: none ${per(totals.none)} ms/call, queue ${per(totals.queue)} (ratio ${(totals.queue / totals.none).toFixed(3)}, rounds ${range(ratios('queue'))}), ` +
      `upsert ${per(totals.upsert)} (ratio ${(totals.upsert / totals.none).toFixed(3)}, rounds ${range(ratios('upsert'))})`,
  );
}
await pool.query('DROP TRIGGER usage_daily_inserted ON usage_records');
await pool.query('ALTER TABLE usage_records ENABLE TRIGGER usage_rollup_enqueued');
// Why the upserts cost: the triggers' own time for one batch of 16 new records (EXPLAIN ANALYZE).
for (const trigger of ['usage_daily_inserted', 'usage_rollup_enqueued']) {
  const client = await pool.connect();
  await client.query('BEGIN');
  if (trigger === 'usage_daily_inserted')
    await client.query(
      `CREATE TRIGGER usage_daily_inserted AFTER INSERT ON usage_records REFERENCING NEW TABLE AS usage_daily_new
         FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_inserted()`,
    );
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, TIMING) INSERT INTO usage_records (license_id, ip, hwid, status, created_at)
     SELECT md5('l' || n)::uuid, '10.0.0.1', 'hw-1', 'success', now() FROM generate_series(1, 16) n`,
  );
  console.log(
    rows
      .map((row) => row['QUERY PLAN'])
      .filter((line) => /Trigger|Execution/.test(line))
      .join('\n'),
  );
  await client.query('ROLLBACK');
  client.release();
}
const t2 = performance.now();
const before = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_rollup_queue');
await fold();
console.log(
  `fold of the queue left by the rounds: ${before.rows[0]!.n} rows in ${(performance.now() - t2).toFixed(0)} ms`,
);
await pool.end();
