import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '@app/db';
import { createPooledTestDatabase, NO_PGBOUNCER, pgbouncerBinary, type PooledTestDatabase } from '@app/db/testing';
import { requireForTests } from '@app/http/testing';
import { migrationsFolder } from '../src/app.js';
import { RELAXED_LIMITS, startTestSite, type TestSite } from './helpers.js';

// Decisions, wave 4, "Behind a transaction pooler": the service migrates and serves through
// PgBouncer in transaction mode, where each transaction may get another server connection.
const serverUrl = process.env.TEST_DATABASE_URL;
const what = 'the paste service through PgBouncer';
if (!serverUrl) process.stderr.write(`skipped: ${what} (it needs a PostgreSQL server: set TEST_DATABASE_URL)\n`);
const runs = !!serverUrl && requireForTests(what, pgbouncerBinary() ? undefined : NO_PGBOUNCER);

describe.skipIf(!runs)('the paste service through PgBouncer in transaction mode', () => {
  let pooled: PooledTestDatabase;
  let site: TestSite;

  beforeAll(async () => {
    // Two server connections for the pool's ten clients: statements of one client meet
    // several server connections, and each server connection several clients.
    pooled = await createPooledTestDatabase(serverUrl!, { poolSize: 2, maxConnections: 10 });
    await runMigrations(pooled.database.migrationDb, migrationsFolder, 'paste');
    site = await startTestSite(RELAXED_LIMITS, { database: pooled.database });
  });
  afterAll(async () => {
    await site?.close();
    await pooled?.close();
  });

  const simultaneous = (path: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, () =>
        fetch(`${site.baseUrl}${path}`, { headers: { Connection: 'close' } }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );

  it('migrated through the pooler, once, and left no advisory lock behind', async () => {
    const { rows } = await pooled.database.pool.query<{ applied: number; locks: number }>(
      `SELECT (SELECT count(*) FROM __migrations_paste) AS applied,
              (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS locks`,
    );
    expect(rows[0]!.applied).toBeGreaterThan(0);
    expect(rows[0]!.locks).toBe(0);
  });

  it('creates a paste and shows it, counting each view', async () => {
    const slug = await site.createPaste({ content: 'through the pooler' });
    const statuses = await simultaneous(`/paste/${slug}`, 30);
    expect(statuses).toEqual(Array.from({ length: 30 }, () => 200));
    const { rows } = await site.database.pool.query<{ views_count: number }>(
      'SELECT views_count FROM pastes WHERE slug = $1',
      [slug],
    );
    expect(rows[0]!.views_count).toBe(30);
  });

  it('keeps a view limit exact when 40 views of a paste with maxViews 5 race', async () => {
    const slug = await site.createPaste({ content: 'five times', maxViews: 5 });
    const statuses = await simultaneous(`/paste/${slug}/raw`, 40);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 410)).toHaveLength(35);
  });

  it('sent its statements through PgBouncer', async () => {
    const stats = (await pooled.pgbouncer.stats()).get(new URL(pooled.pooledUrl).pathname.slice(1));
    expect(stats?.transactions).toBeGreaterThan(0);
  });
});
