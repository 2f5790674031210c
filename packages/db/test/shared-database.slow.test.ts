import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, type Database } from '../src/index.js';
import { createTestDatabase, testDatabaseBackend } from '../src/testing/index.js';

// Both services may share one database (a lone DATABASE_URL). Each keeps its sessions and
// settings in tables of its own, and their migrations run one at a time: both starting at once
// on a fresh database used to fail now and then on `CREATE TABLE IF NOT EXISTS "session"`
// (duplicate key value violates unique constraint "pg_type_typname_nsp_index").
const root = path.resolve(import.meta.dirname, '../../..');
const services = {
  paste: { migrations: path.join(root, 'apps/paste/drizzle'), other: 'license', namespaces: ['paste'] },
  license: {
    migrations: path.join(root, 'apps/license/drizzle'),
    other: 'paste',
    namespaces: ['license', 'notification-channels'],
  },
} as const;
type Service = keyof typeof services;

const migrationCount = (folder: string) =>
  (JSON.parse(readFileSync(path.join(folder, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

/** Each service's migrations as they were before its tables were its own (the old schema). */
const scratch = mkdtempSync(path.join(os.tmpdir(), 'shared-database-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
function oldMigrations(service: Service): string {
  const folder = path.join(scratch, service);
  cpSync(services[service].migrations, folder, { recursive: true });
  const journalFile = path.join(folder, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const firstNew = journal.entries.findIndex((entry) => entry.tag.endsWith('_own_session_settings'));
  expect(firstNew).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, firstNew);
  writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}
const old = { paste: oldMigrations('paste'), license: oldMigrations('license') };

const serverUrl = process.env.TEST_DATABASE_URL;

interface SharedDatabase {
  /** One connection pool per service, as two processes would have (the embedded backend has one database, so one pool). */
  paste: Database;
  license: Database;
  drop(): Promise<void>;
}

/** A new empty database on the test server, or an embedded one in memory. */
async function emptyDatabase(): Promise<SharedDatabase> {
  if (!serverUrl) {
    const empty = path.join(scratch, 'empty');
    cpSync(path.join(old.paste, 'meta'), path.join(empty, 'meta'), { recursive: true });
    writeFileSync(
      path.join(empty, 'meta/_journal.json'),
      JSON.stringify({ version: '7', dialect: 'postgresql', entries: [] }),
    );
    const database = await createTestDatabase(empty);
    return { paste: database, license: database, drop: () => database.close() };
  }
  const name = `shared_${process.pid}_${Math.random().toString(16).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const [paste, license] = await Promise.all([
    openDatabase({ url: url.toString(), maxConnections: 3 }),
    openDatabase({ url: url.toString(), maxConnections: 3 }),
  ]);
  return {
    paste,
    license,
    async drop() {
      await Promise.all([paste.close(), license.close()]);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

const migrate = (database: SharedDatabase, service: Service, folder = services[service].migrations) =>
  runMigrations(database[service].db, folder, service);

async function tablesOf(database: Database): Promise<string[]> {
  const { rows } = await database.pool.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'
       AND tablename IN ('session', 'settings', 'paste_session', 'paste_settings', 'license_session', 'license_settings')
     ORDER BY tablename`,
  );
  return rows.map((row) => row.name);
}

async function appliedMigrations(database: Database, service: Service): Promise<number> {
  const { rows } = await database.pool.query<{ count: number }>(
    `SELECT count(*) AS count FROM "__migrations_${service}"`,
  );
  return rows[0]!.count;
}

const expire = new Date(Date.now() + 3_600_000).toISOString();
const oldSessions = [
  {
    sid: 'paste-owner-session',
    sess: { cookie: { path: '/' }, passport: { user: { id: 'owner', username: 'owner' } } },
  },
  {
    sid: 'license-admin-session',
    sess: { cookie: { path: '/' }, passport: { user: { id: 'admin', username: 'admin' } } },
  },
];
const oldSettings = [
  { namespace: 'paste', value: { siteName: 'My Pastes', maxPasteSize: 2 }, version: 4 },
  { namespace: 'license', value: { security: { panicMode: true } }, version: 2 },
  { namespace: 'notification-channels', value: { email: { host: 'smtp.example.com' } }, version: 1 },
];

/** The old schema (shared `session` and `settings`) with rows, as `services` left it. */
async function migratedByTheOldSchema(database: SharedDatabase, using: Service[]): Promise<void> {
  for (const service of using) await runMigrations(database[service].db, old[service], service);
  const pool = database[using[0]!].pool;
  for (const { sid, sess } of oldSessions) {
    await pool.query('INSERT INTO "session" (sid, sess, expire) VALUES ($1, $2, $3)', [
      sid,
      JSON.stringify(sess),
      expire,
    ]);
  }
  for (const { namespace, value, version } of oldSettings) {
    await pool.query('INSERT INTO "settings" (namespace, value, version) VALUES ($1, $2, $3)', [
      namespace,
      JSON.stringify(value),
      version,
    ]);
  }
}

async function sessionsIn(database: Database, table: string) {
  const { rows } = await database.pool.query<{ sid: string; sess: unknown; expire: Date }>(
    `SELECT sid, sess, expire FROM "${table}" ORDER BY sid`,
  );
  return rows.map((row) => ({ sid: row.sid, sess: row.sess, expire: row.expire instanceof Date }));
}

async function settingsIn(database: Database, table: string) {
  const { rows } = await database.pool.query<{ namespace: string; value: unknown; version: number }>(
    `SELECT namespace, value, version FROM "${table}" ORDER BY namespace`,
  );
  return rows;
}

const expectedSessions = [...oldSessions]
  .sort((a, b) => a.sid.localeCompare(b.sid))
  .map(({ sid, sess }) => ({ sid, sess, expire: true }));
const settingsOf = (service: Service) =>
  oldSettings
    .filter((row) => (services[service].namespaces as readonly string[]).includes(row.namespace))
    .sort((a, b) => a.namespace.localeCompare(b.namespace));

// The embedded database starts slowly on a busy machine, and each test migrates both services.
const slow = { timeout: 120_000 };

describe(`a database both services share (${testDatabaseBackend()})`, slow, () => {
  const rounds = 20;
  it.skipIf(!serverUrl)(
    `migrates both services started at the same moment on a fresh database, ${rounds} rounds out of ${rounds}`,
    async () => {
      const failures: string[] = [];
      for (let round = 1; round <= rounds; round++) {
        const database = await emptyDatabase();
        try {
          const results = await Promise.allSettled([migrate(database, 'paste'), migrate(database, 'license')]);
          for (const result of results)
            if (result.status === 'rejected')
              failures.push(`round ${round}: ${String(result.reason?.cause ?? result.reason)}`);
          if (results.every((result) => result.status === 'fulfilled')) {
            expect(await tablesOf(database.paste)).toEqual([
              'license_session',
              'license_settings',
              'paste_session',
              'paste_settings',
            ]);
            expect(await appliedMigrations(database.paste, 'paste')).toBe(migrationCount(services.paste.migrations));
            expect(await appliedMigrations(database.paste, 'license')).toBe(
              migrationCount(services.license.migrations),
            );
          }
        } finally {
          await database.drop();
        }
      }
      expect(failures).toEqual([]);
    },
    600_000,
  );
  if (!serverUrl) {
    process.stderr.write(
      'skipped: both services migrating one database at once (the embedded backend gives each service a PGlite database of its own; set TEST_DATABASE_URL to run it)\n',
    );
  }

  it.each([
    { order: 'the paste service first', first: 'paste' as const, second: 'license' as const },
    { order: 'the license service first', first: 'license' as const, second: 'paste' as const },
  ])(
    'upgraded from the old schema ($order), keeps every session and each service its own settings',
    async ({ first, second }) => {
      const database = await emptyDatabase();
      try {
        await migratedByTheOldSchema(database, ['paste', 'license']);

        // One service upgraded: the other still runs on the old tables, so they stay.
        await migrate(database, first);
        expect(await tablesOf(database.paste)).toEqual(
          ['session', 'settings', `${first}_session`, `${first}_settings`].sort(),
        );
        expect(await sessionsIn(database[first], `${first}_session`)).toEqual(expectedSessions);
        expect(await settingsIn(database[first], `${first}_settings`)).toEqual(settingsOf(first));

        // Both upgraded: each has its rows, and the old tables are gone.
        await migrate(database, second);
        expect(await tablesOf(database.paste)).toEqual([
          'license_session',
          'license_settings',
          'paste_session',
          'paste_settings',
        ]);
        for (const service of [first, second]) {
          expect(await sessionsIn(database[service], `${service}_session`)).toEqual(expectedSessions);
          expect(await settingsIn(database[service], `${service}_settings`)).toEqual(settingsOf(service));
        }
      } finally {
        await database.drop();
      }
    },
  );

  it('upgraded from the old schema by both services at the same moment, keeps every session and each service its own settings', async () => {
    const database = await emptyDatabase();
    try {
      await migratedByTheOldSchema(database, ['paste', 'license']);
      await Promise.all([migrate(database, 'paste'), migrate(database, 'license')]);
      expect(await tablesOf(database.paste)).toEqual([
        'license_session',
        'license_settings',
        'paste_session',
        'paste_settings',
      ]);
      for (const service of ['paste', 'license'] as const) {
        expect(await sessionsIn(database[service], `${service}_session`)).toEqual(expectedSessions);
        expect(await settingsIn(database[service], `${service}_settings`)).toEqual(settingsOf(service));
      }
    } finally {
      await database.drop();
    }
  });
});

describe(`a database one service uses (${testDatabaseBackend()})`, slow, () => {
  it.each(['paste', 'license'] as const)(
    'the %s service upgraded from the old schema keeps its sessions and settings, and drops the old tables',
    async (service) => {
      const database = await emptyDatabase();
      try {
        await migratedByTheOldSchema(database, [service]);
        await migrate(database, service);
        expect(await tablesOf(database[service])).toEqual([`${service}_session`, `${service}_settings`]);
        expect(await sessionsIn(database[service], `${service}_session`)).toEqual(expectedSessions);
        expect(await settingsIn(database[service], `${service}_settings`)).toEqual(settingsOf(service));
      } finally {
        await database.drop();
      }
    },
  );

  it.each(['paste', 'license'] as const)(
    'the %s service on a fresh database has only its own tables',
    async (service) => {
      const database = await emptyDatabase();
      try {
        await migrate(database, service);
        expect(await tablesOf(database[service])).toEqual([`${service}_session`, `${service}_settings`]);
      } finally {
        await database.drop();
      }
    },
  );
});
