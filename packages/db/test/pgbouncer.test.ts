import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, withTransaction, type Database } from '../src/index.js';
import {
  createPooledTestDatabase,
  NO_PGBOUNCER,
  pgbouncerBinary,
  pgbouncerVersion,
  type PooledTestDatabase,
} from '../src/testing/index.js';

// Decisions, wave 4, "Behind a transaction pooler": through PgBouncer in transaction mode, each
// transaction may run on another server connection, so nothing may rely on a session.
const serverUrl = process.env.TEST_DATABASE_URL;
const bin = pgbouncerBinary();
if (!serverUrl)
  process.stderr.write(
    'skipped: the database through PgBouncer (it needs a PostgreSQL server: set TEST_DATABASE_URL)\n',
  );
else if (!bin) process.stderr.write(`skipped: the database through PgBouncer (${NO_PGBOUNCER})\n`);
// PgBouncer 1.21 and later may keep named statements itself (max_prepared_statements).
const [major, minor] = bin ? pgbouncerVersion(bin) : [0, 0];
const keepsNamedStatements = major > 1 || (major === 1 && minor >= 21);

const folders = mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-migrations-'));
afterAll(() => rmSync(folders, { recursive: true, force: true }));

/** A migrations folder with one migration of the given SQL. */
function migrationsWith(name: string, sql: string): string {
  const folder = path.join(folders, name);
  mkdirSync(path.join(folder, 'meta'), { recursive: true });
  writeFileSync(path.join(folder, '0000_only.sql'), sql);
  writeFileSync(
    path.join(folder, 'meta/_journal.json'),
    JSON.stringify({
      version: '7',
      dialect: 'postgresql',
      entries: [{ idx: 0, version: '7', when: 1763776800000, tag: '0000_only', breakpoints: true }],
    }),
  );
  return folder;
}

const good = migrationsWith(
  'good',
  'CREATE TABLE "notes" ("id" integer PRIMARY KEY);\n--> statement-breakpoint\nSELECT pg_sleep(0.2);',
);
const failing = migrationsWith(
  'failing',
  'CREATE TABLE "doomed" ("id" integer PRIMARY KEY);\n--> statement-breakpoint\nSELECT 1 / 0;',
);

describe.skipIf(!serverUrl || !bin)('the database through PgBouncer in transaction mode', () => {
  let pooled: PooledTestDatabase;
  let direct: pg.Client;
  const opened: Database[] = [];
  /** Another instance of the service on the same pooled URL. */
  const another = async (options: { poolMode?: 'session' | 'transaction'; migrationUrl?: string } = {}) => {
    const database = await openDatabase({
      url: pooled.pooledUrl,
      poolMode: options.poolMode ?? 'transaction',
      migrationUrl: options.migrationUrl,
      maxConnections: 4,
    });
    opened.push(database);
    return database;
  };
  const advisoryLocks = async () =>
    (
      await direct.query<{ locks: number }>(
        `SELECT count(*) AS locks FROM pg_locks WHERE locktype = 'advisory'
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      )
    ).rows[0]!.locks;

  beforeAll(async () => {
    // One server connection: every client of every pool takes turns on it.
    pooled = await createPooledTestDatabase(serverUrl!, { poolSize: 1, maxConnections: 4 });
    direct = new pg.Client({ connectionString: pooled.directUrl });
    await direct.connect();
  });
  afterAll(async () => {
    for (const database of opened) await database.close();
    await direct?.end();
    await pooled?.close();
  });

  it('a failed migration is rolled back and lets its lock go; then three instances at once migrate once', async () => {
    await expect(runMigrations(pooled.database.db, failing, 'failing')).rejects.toThrow(/SELECT 1 \/ 0/);
    expect(await advisoryLocks()).toBe(0);
    expect((await direct.query("SELECT to_regclass('public.doomed') AS doomed")).rows).toEqual([{ doomed: null }]);

    const instances = [pooled.database, await another(), await another()];
    await Promise.all(instances.map((database) => runMigrations(database.db, good, 'test')));
    expect((await direct.query('SELECT count(*) AS applied FROM __migrations_test')).rows).toEqual([{ applied: 1 }]);
    expect((await direct.query('SELECT count(*) AS notes FROM notes')).rows).toEqual([{ notes: 0 }]);
    expect(await advisoryLocks()).toBe(0);
  });

  it('migrates on the direct URL (DATABASE_MIGRATION_URL) when one is given, not through PgBouncer', async () => {
    const database = await another({ migrationUrl: pooled.directUrl });
    const name = new URL(pooled.pooledUrl).pathname.slice(1);
    const pooledQueries = async () => (await pooled.pgbouncer.stats()).get(name)?.queries ?? 0;
    const before = await pooledQueries();
    await runMigrations(database.migrationDb, migrationsWith('direct', 'CREATE TABLE "direct" ("id" integer);'), 'd');
    expect(await pooledQueries()).toBe(before);
    expect((await direct.query("SELECT to_regclass('public.direct') AS made")).rows).toEqual([{ made: 'direct' }]);
    // PgBouncer counts at once: a statement of the pool shows.
    await database.pool.query('SELECT 1');
    expect(await pooledQueries()).toBeGreaterThan(before);
  });

  it('sends named statements unnamed (poolMode transaction), so clients sharing one server connection never collide', async () => {
    const database = await another();
    const named = (i: number) =>
      database.pool.query<{ n: number }>({ name: 'pgbouncer-add-one', text: 'SELECT $1::int + 1 AS n', values: [i] });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => named(i)));
    expect(answers.map((answer) => answer.rows[0]!.n)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Inside transactions too (a transaction keeps its server connection until it ends).
    const inTransactions = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withTransaction(database.pool, async (client) => {
          const first = await client.query<{ n: number }>({
            name: 'pgbouncer-add-one',
            text: 'SELECT $1::int + 1 AS n',
            values: [i],
          });
          return first.rows[0]!.n;
        }),
      ),
    );
    expect(inTransactions).toEqual(Array.from({ length: 8 }, (_, i) => i + 1));
  });

  it.skipIf(keepsNamedStatements)(
    'shows why: named statements of a session-mode pool collide through this PgBouncer',
    async () => {
      const database = await another({ poolMode: 'session' });
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          database.pool.query({ name: 'pgbouncer-collide', text: 'SELECT $1::int AS n', values: [i] }),
        ),
      );
      const reasons = results.flatMap((result) =>
        result.status === 'rejected' ? [String((result.reason as Error).message)] : [],
      );
      expect(reasons.length).toBeGreaterThan(0);
      expect(
        reasons.every((reason) =>
          /prepared statement "pgbouncer-collide" (already exists|does not exist)/.test(reason),
        ),
      ).toBe(true);
    },
  );
});
