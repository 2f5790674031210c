import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.js';
import { createEmptyEmbeddedDatabase } from '../src/testing/index.js';
import { vacuumWhereNeeded } from '../src/embedded-vacuum.js';

// PGlite has no autovacuum; the embedded database does its work (embedded-vacuum.ts). These
// tests run the real embedded database, whatever TEST_DATABASE_URL says.
describe('embedded database maintenance (autovacuum stand-in)', () => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  const open = async (vacuumIntervalMs = 3_600_000) => {
    database = await createEmptyEmbeddedDatabase({ vacuumIntervalMs, warn: () => {} });
    return database.pool;
  };
  // A session reports its counts to the statistics at most once a second; force it now.
  const flushStats = async () => {
    await database!.pool.query('SELECT pg_stat_force_next_flush()');
    await database!.pool.query('SELECT 1');
  };
  const tableStats = async (table: string) =>
    (await flushStats(),
    await database!.pool.query<{ dead: number; vacuumed: boolean; analyzed: boolean }>(
      `SELECT n_dead_tup AS dead, (last_vacuum IS NOT NULL) AS vacuumed, (last_analyze IS NOT NULL) AS analyzed
       FROM pg_stat_user_tables WHERE relname = $1`,
      [table],
    )).rows[0];
  /** A one-row counter table (`n` starts at 0), with the storage parameters given. */
  const counterTable = async (table: string, storage = '') => {
    await database!.pool.query(
      `CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL)${storage ? ` WITH (${storage})` : ''}`,
    );
    await database!.pool.query(`INSERT INTO ${table} VALUES (1, 0)`);
  };
  const updateRepeatedly = async (table: string, times: number) => {
    for (let i = 0; i < times; i++) await database!.pool.query(`UPDATE ${table} SET n = n + 1 WHERE id = 1`);
  };

  it("vacuums and analyzes a table once its dead rows pass autovacuum's threshold, and only then", async () => {
    const pool = await open();
    await counterTable('hits');
    // Autovacuum's defaults: 50 dead rows + 20% of the table; 50 changed rows + 10% for an analyze.
    await updateRepeatedly('hits', 40);
    await flushStats();
    expect(await vacuumWhereNeeded(pool)).toEqual([]);
    await updateRepeatedly('hits', 30);
    expect((await tableStats('hits'))!.dead).toBe(70);

    expect(await vacuumWhereNeeded(pool)).toEqual([{ table: 'public.hits', vacuum: true, analyze: true }]);
    expect(await tableStats('hits')).toEqual({ dead: 0, vacuumed: true, analyzed: true });
    expect((await pool.query('SELECT n FROM hits')).rows).toEqual([{ n: 70 }]);
    // Done: nothing is due until the table changes again.
    expect(await vacuumWhereNeeded(pool)).toEqual([]);
  });

  it("follows a table's own autovacuum settings", async () => {
    const pool = await open();
    await counterTable('counters', 'autovacuum_vacuum_threshold = 1000, autovacuum_analyze_threshold = 1000');
    await updateRepeatedly('counters', 200);
    await flushStats();
    expect(await vacuumWhereNeeded(pool)).toEqual([]);
    expect((await tableStats('counters'))!.dead).toBe(200);
  });

  it('analyzes a table whose rows were only inserted, without vacuuming it', async () => {
    const pool = await open();
    await pool.query('CREATE TABLE records (id int PRIMARY KEY)');
    await pool.query('INSERT INTO records SELECT generate_series(1, 500)');
    await flushStats();
    // 500 changed rows pass the analyze threshold (50); the insert threshold (1,000) is not reached.
    expect(await vacuumWhereNeeded(pool)).toEqual([{ table: 'public.records', vacuum: false, analyze: true }]);
    expect(await tableStats('records')).toMatchObject({ vacuumed: false, analyzed: true });
    const { rows } = await pool.query<{ reltuples: number }>(
      "SELECT reltuples FROM pg_class WHERE relname = 'records'",
    );
    expect(rows[0]!.reltuples).toBe(500);
  });

  it('keeps one generic plan per named statement, and replans it once a grown table is analyzed', async () => {
    const pool = await open();
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, slug text UNIQUE NOT NULL)');
    await pool.query("INSERT INTO items VALUES (1, 'a'), (2, 'b')");
    // The shape of the paste views' batch: rows looked up by an array of keys.
    const byName = {
      name: 'items-by-slugs',
      text: 'SELECT id FROM items JOIN unnest($1::text[]) AS u(slug) USING (slug)',
      values: [['a']],
    };
    expect((await pool.query(byName)).rows).toEqual([{ id: 1 }]);
    // PGlite has one session: EXPLAIN EXECUTE sees the pool client's prepared statement.
    const plan = async () =>
      (await pool.query(`EXPLAIN EXECUTE "items-by-slugs"('{a}')`)).rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(await pool.query('SHOW plan_cache_mode')).toMatchObject({
      rows: [{ plan_cache_mode: 'force_generic_plan' }],
    });
    // Planned on a two-row table: reading it whole is cheapest.
    expect(await plan()).toContain('Seq Scan on items');

    await pool.query("INSERT INTO items SELECT i, 's' || i FROM generate_series(3, 20000) AS i");
    await flushStats();
    expect(await vacuumWhereNeeded(pool)).toContainEqual(
      expect.objectContaining({ table: 'public.items', analyze: true }),
    );
    expect(await plan()).toMatch(/Index (Only )?Scan using items_slug_key on items/);
    expect((await pool.query(byName)).rows).toEqual([{ id: 1 }]);
  });

  it('runs on its own while the database is open, and stops with it', async () => {
    await open(50);
    await counterTable('hits');
    await updateRepeatedly('hits', 100);
    const deadline = Date.now() + 10_000;
    while (!(await tableStats('hits'))!.vacuumed && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await tableStats('hits')).toMatchObject({ dead: 0, vacuumed: true });
    // Closing waits for a check under way; nothing runs against the closed pool afterwards.
    await database!.close();
    database = undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
});
