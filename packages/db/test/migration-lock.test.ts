import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, type Database } from '../src/index.js';
import { createTestDatabase, testDatabaseBackend } from '../src/testing/index.js';

// Every migration runs under one advisory lock per database, so two services (or two instances
// of one) never migrate at the same moment; the lock is let go whatever happens.
const folders = mkdtempSync(path.join(os.tmpdir(), 'migration-lock-'));
afterAll(() => rmSync(folders, { recursive: true, force: true }));

/** A migrations folder with one migration of the given SQL (none without). */
function migrationsWith(name: string, sql?: string): string {
  const folder = path.join(folders, name);
  mkdirSync(path.join(folder, 'meta'), { recursive: true });
  if (sql !== undefined) writeFileSync(path.join(folder, '0000_only.sql'), sql);
  writeFileSync(
    path.join(folder, 'meta/_journal.json'),
    JSON.stringify({
      version: '7',
      dialect: 'postgresql',
      entries:
        sql === undefined ? [] : [{ idx: 0, version: '7', when: 1763776800000, tag: '0000_only', breakpoints: true }],
    }),
  );
  return folder;
}

const none = migrationsWith('none');

const good = migrationsWith('good', 'CREATE TABLE "notes" ("id" integer PRIMARY KEY);');
const failing = migrationsWith(
  'failing',
  'CREATE TABLE "doomed" ("id" integer PRIMARY KEY);\n--> statement-breakpoint\nSELECT 1 / 0;',
);

const serverUrl = process.env.TEST_DATABASE_URL;

/** A new empty database: on the test server, or an embedded one in memory. */
async function emptyDatabase(): Promise<{ open(): Promise<Database>; url?: string; drop(): Promise<void> }> {
  if (!serverUrl) {
    // A copy of a cached empty template: far faster than a new PGlite's first start.
    const database = await createTestDatabase(none);
    return { open: () => Promise.resolve(database), drop: () => database.close() };
  }
  const name = `migration_lock_${process.pid}_${Math.random().toString(16).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const opened: Database[] = [];
  return {
    url: url.toString(),
    async open() {
      const database = await openDatabase({ url: url.toString(), maxConnections: 2 });
      opened.push(database);
      return database;
    },
    async drop() {
      for (const database of opened) await database.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

const heldAdvisoryLocks = async (database: Database) =>
  (
    await database.pool.query<{ granted: boolean }>(
      "SELECT granted FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
  ).rows;

describe(`migrations under an advisory lock (${testDatabaseBackend()})`, () => {
  it('a failed migration is rolled back, lets the lock go, and the next migration runs', async () => {
    const empty = await emptyDatabase();
    try {
      const database = await empty.open();
      await expect(runMigrations(database.db, failing, 'test')).rejects.toThrow(/SELECT 1 \/ 0/);
      expect(await heldAdvisoryLocks(database)).toEqual([]);
      expect((await database.pool.query("SELECT to_regclass('public.doomed') AS doomed")).rows).toEqual([
        { doomed: null },
      ]);

      await runMigrations(database.db, good, 'test');
      expect(await heldAdvisoryLocks(database)).toEqual([]);
      expect((await database.pool.query('SELECT count(*) AS notes FROM notes')).rows).toEqual([{ notes: 0 }]);
    } finally {
      await empty.drop();
    }
  });

  if (!serverUrl) {
    process.stderr.write(
      'skipped: a migration waiting for another connection (the embedded database has one connection; set TEST_DATABASE_URL to run it)\n',
    );
  }
  it.skipIf(!serverUrl)('waits while another connection migrates this database, and runs once it is done', async () => {
    const empty = await emptyDatabase();
    const other = new pg.Client({ connectionString: empty.url });
    await other.connect();
    try {
      const database = await empty.open();
      const observer = await empty.open();
      // Another migration holds the lock (the same key runMigrations takes).
      await other.query("SELECT pg_advisory_lock(hashtext('paste-and-license migrations'))");
      let finished = false;
      const migrating = runMigrations(database.db, good, 'test').then(() => {
        finished = true;
      });
      // Wait until the migration is seen waiting on the lock, then check it did nothing yet.
      for (let attempt = 0; attempt < 200; attempt++) {
        if ((await heldAdvisoryLocks(observer)).some((lock) => !lock.granted)) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect((await heldAdvisoryLocks(observer)).map((lock) => lock.granted).sort()).toEqual([false, true]);
      expect(finished).toBe(false);
      expect((await observer.pool.query("SELECT to_regclass('public.__migrations_test') AS history")).rows).toEqual([
        { history: null },
      ]);

      await other.query("SELECT pg_advisory_unlock(hashtext('paste-and-license migrations'))");
      await migrating;
      expect((await observer.pool.query('SELECT count(*) AS notes FROM notes')).rows).toEqual([{ notes: 0 }]);
      expect(await heldAdvisoryLocks(observer)).toEqual([]);
    } finally {
      await other.end();
      await empty.drop();
    }
  });
});
