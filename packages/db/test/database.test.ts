import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { defaultSharedBuffers, openDatabase, runMigrations, withTransaction, type Database } from '../src/index.js';
import { createEmptyEmbeddedDatabase, createTestDatabase, testDatabaseBackend } from '../src/testing/index.js';

const migrations = path.join(import.meta.dirname, 'fixtures/migrations');

describe(`test databases (${testDatabaseBackend()})`, () => {
  let first: Database;
  let second: Database;
  beforeAll(async () => {
    [first, second] = await Promise.all([createTestDatabase(migrations), createTestDatabase(migrations)]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
  });

  it('gives each caller its own migrated database', async () => {
    await first.pool.query("UPDATE counters SET value = 5 WHERE name = 'views'");
    const one = await first.pool.query('SELECT value FROM counters');
    const two = await second.pool.query('SELECT value FROM counters');
    expect(one.rows).toEqual([{ value: 5 }]);
    expect(two.rows).toEqual([{ value: 0 }]);
  });

  it('keeps concurrent increments exact', async () => {
    await Promise.all(
      Array.from({ length: 50 }, () => second.pool.query("UPDATE counters SET value = value + 1 WHERE name = 'views'")),
    );
    const { rows } = await second.pool.query('SELECT value FROM counters');
    expect(rows[0].value).toBe(50);
  });

  it('rolls a failed transaction back whole', async () => {
    await expect(
      withTransaction(first.pool, async (client) => {
        await client.query("UPDATE counters SET value = 99 WHERE name = 'views'");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await first.pool.query('SELECT value FROM counters');
    expect(rows[0].value).toBe(5);
  });

  it('keeps answering after failed queries (a duplicate key, a missing table)', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(first.pool.query('INSERT INTO counters (name) VALUES ($1)', ['views'])).rejects.toThrow(
        /duplicate key/,
      );
      await expect(first.pool.query('SELECT * FROM missing WHERE a = $1', [1])).rejects.toThrow(/does not exist/);
      const { rows } = await first.pool.query('SELECT count(*) AS n FROM counters WHERE name = $1', ['views']);
      expect(rows[0].n).toBe(1);
    }
  });

  it('keeps named prepared statements working after a failed one (a parameter the server refuses)', async () => {
    const named = (value: string) =>
      first.pool.query({
        name: 'counter-by-name',
        text: 'SELECT value FROM counters WHERE name = $1',
        values: [value],
      });
    expect((await named('views')).rows).toHaveLength(1);
    for (let attempt = 0; attempt < 3; attempt++) {
      // PostgreSQL text cannot hold NUL: the server refuses the parameter after the statement was prepared.
      await expect(named('bad\u0000name')).rejects.toThrow(/0x00/);
      expect((await named('views')).rows).toHaveLength(1);
    }
  });

  it('reads COUNT(*) as a number', async () => {
    const { rows } = await first.pool.query('SELECT COUNT(*) AS n FROM counters');
    expect(rows[0].n).toBe(1);
  });
});

describe('embedded database on disk', () => {
  it('keeps its data across a restart', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'pglite-'));
    try {
      const dataDir = path.join(folder, 'paste');
      const before = await openDatabase({ dataDir });
      await runMigrations(before.db, migrations);
      await before.pool.query("UPDATE counters SET value = 7 WHERE name = 'views'");
      await before.close();
      const after = await openDatabase({ dataDir });
      await runMigrations(after.db, migrations);
      const { rows } = await after.pool.query('SELECT value FROM counters');
      await after.close();
      expect(rows).toEqual([{ value: 7 }]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('keeps a small page cache by default, and the size it is given (docs/performance.md)', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'pglite-'));
    try {
      // A new folder: initdb runs in a process of its own first; the files it leaves open again.
      const byDefault = await openDatabase({ dataDir: path.join(folder, 'default') });
      const { rows: small } = await byDefault.pool.query('SHOW shared_buffers');
      await byDefault.close();
      expect(small).toEqual([{ shared_buffers: defaultSharedBuffers }]);
      expect(defaultSharedBuffers).toBe('16MB');
      expect(existsSync(path.join(folder, 'default', 'PG_VERSION'))).toBe(true);

      const larger = await openDatabase({ dataDir: path.join(folder, 'default'), sharedBuffers: '48MB' });
      const { rows } = await larger.pool.query('SHOW shared_buffers');
      await larger.close();
      expect(rows).toEqual([{ shared_buffers: '48MB' }]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('listens on a socket only its own user can open, and removes it on close', async () => {
    const database = await createEmptyEmbeddedDatabase();
    const folder = decodeURIComponent(/[?&]host=([^&]+)/.exec(database.url)?.[1] ?? '');
    try {
      // A Unix socket in a 0700 folder: no TCP port that every local user could connect to.
      expect(database.url).not.toMatch(/127\.0\.0\.1|localhost/);
      expect(folder).toMatch(/pglite-/);
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(folder, '.s.PGSQL.5432')).isSocket()).toBe(true);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await database.close();
    }
    expect(existsSync(folder)).toBe(false);
  });
});
