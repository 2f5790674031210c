import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '@app/db';
import { createPooledTestDatabase, NO_PGBOUNCER, pgbouncerBinary, type PooledTestDatabase } from '@app/db/testing';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { requireForTests } from '@app/http/testing';
import { buildTestApp, migrationsFolder, type TestApp } from './helpers.js';

// Decisions, wave 4, "Behind a transaction pooler": the service migrates, runs its job queue
// and answers through PgBouncer in transaction mode, where each transaction may get another
// server connection.
const serverUrl = process.env.TEST_DATABASE_URL;
const what = 'the license service through PgBouncer';
if (!serverUrl) process.stderr.write(`skipped: ${what} (it needs a PostgreSQL server: set TEST_DATABASE_URL)\n`);
const runs = !!serverUrl && requireForTests(what, pgbouncerBinary() ? undefined : NO_PGBOUNCER);

describe.skipIf(!runs)('the license service through PgBouncer in transaction mode', () => {
  let pooled: PooledTestDatabase;
  let jobs: JobQueue;
  let t: TestApp;

  beforeAll(async () => {
    // One server connection for the pool's ten clients and pg-boss: every client takes turns on
    // it, and no part may hold a transaction open while it waits for another statement.
    pooled = await createPooledTestDatabase(serverUrl!, { poolSize: 1, maxConnections: 10 });
    await runMigrations(pooled.database.migrationDb, migrationsFolder, 'license');
    // pg-boss installs its schema and polls through the pooler too.
    jobs = await createJobQueue({
      pool: pooled.database.pool,
      logger: createLogger({ level: 'silent' }),
      schema: 'pgboss_license',
      stopTimeoutMs: 1000,
    });
    t = await buildTestApp({ database: pooled.database, jobs });
  });
  afterAll(async () => {
    await t?.close();
    await jobs?.stop();
    await pooled?.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { error?: string } }));

  it('validates a license, exactly at its IP limit, when 60 addresses ask at once', async () => {
    const license = await t.createLicense({ ipLimit: 3 });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post('/api/license/validate', { key: license.key, ip: `10.20.0.${i + 1}` })),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(3);
    expect(results.filter((result) => result.status === 403).every((r) => r.body.error === 'IP limit exceeded')).toBe(
      true,
    );
    expect((await t.context.services.licenses.detail(license._id)).usedIps).toHaveLength(3);
  });

  it('activates machines up to the limit when 20 fingerprints ask at once', async () => {
    const license = await t.createLicense({ hwidLimit: 4 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post('/api/license/machines/activate', { key: license.key, fingerprint: `fp-${i}` }),
      ),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(4);
    const { rows } = await t.database.pool.query<{ machines: number }>(
      'SELECT count(*) AS machines FROM machines WHERE license_id = $1',
      [license._id],
    );
    expect(rows[0]!.machines).toBe(4);
  });

  it('runs a queued job through the pooler', async () => {
    let ran = false;
    await jobs.work('pgbouncer-test', () => {
      ran = true;
      return Promise.resolve();
    });
    await jobs.send('pgbouncer-test', {});
    for (let attempt = 0; attempt < 100 && !ran; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toBe(true);
  });

  it('sent its statements through PgBouncer', async () => {
    const stats = (await pooled.pgbouncer.stats()).get(new URL(pooled.pooledUrl).pathname.slice(1));
    expect(stats?.transactions).toBeGreaterThan(0);
  });
});
