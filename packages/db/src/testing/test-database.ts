import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../open-database.js';
import type { PgliteWasmModules } from '../embedded-server.js';
import { runMigrations } from '../migrate.js';

/**
 * `TEST_DATABASE_URL` (a server URL whose database is the maintenance database, e.g.
 * postgresql://postgres@127.0.0.1:5432/postgres) selects the PostgreSQL backend for tests;
 * without it every test file gets its own in-memory PGlite.
 */
export function testDatabaseBackend(): 'server' | 'embedded' {
  return process.env.TEST_DATABASE_URL ? 'server' : 'embedded';
}

/**
 * A fresh database with the app's migrations applied, isolated from every other test file.
 * Both backends copy a template made once per migration set, which is far faster than
 * migrating every time. `close()` drops it.
 */
export async function createTestDatabase(migrationsFolder: string): Promise<Database> {
  const hash = migrationsHash(migrationsFolder);
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl
    ? createServerDatabase(serverUrl, migrationsFolder, hash)
    : createEmbeddedDatabase(migrationsFolder, hash);
}

function migrationsHash(folder: string): string {
  const hash = createHash('sha256');
  if (existsSync(folder)) {
    for (const file of readdirSync(folder, { recursive: true }).map(String).sort()) {
      const full = path.join(folder, file);
      if (file.endsWith('.sql') || file.endsWith('.json')) hash.update(file).update(readFileSync(full));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function createServerDatabase(serverUrl: string, migrationsFolder: string, hash: string): Promise<Database> {
  const template = `tpl_${hash}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // Test files run in parallel processes (and several runs may share one server): one of
    // them builds the template while the others wait on the same advisory lock.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (!rowCount) {
        const building = `${template}_build_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE "${building}"`);
        const database = await openDatabase({ url: withDatabase(serverUrl, building), maxConnections: 1 });
        try {
          await runMigrations(database.db, migrationsFolder);
        } finally {
          await database.close();
        }
        await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
      }
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
    }
    const name = `t_${hash.slice(0, 6)}_${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    const database = await openDatabase({ url: withDatabase(serverUrl, name), maxConnections: 10 });
    return {
      ...database,
      async close() {
        await database.close();
        const dropper = new pg.Client({ connectionString: serverUrl });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
        await dropper.end();
      },
    };
  } finally {
    await admin.end();
  }
}

const cacheFolder = path.resolve(import.meta.dirname, '../../../../node_modules/.cache/test-databases');

let wasmModules: Promise<PgliteWasmModules> | undefined;

/**
 * PGlite's two WebAssembly modules, compiled once per test process and handed to every embedded
 * database it opens (a worker thread receives a compiled module without compiling it again).
 */
export function compiledPglite(): Promise<PgliteWasmModules> {
  wasmModules ??= (async () => {
    const dist = path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
    const compile = (file: string) => WebAssembly.compile(readFileSync(path.join(dist, file)));
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]);
    return { pgliteWasmModule, initdbWasmModule };
  })();
  return wasmModules;
}

/** Makes (once, shared by every test process) the dump a database is loaded from; `prepare` fills it. */
async function cachedDump(name: string, prepare: (database: Database) => Promise<void>): Promise<string> {
  const dumpFile = path.join(cacheFolder, `pglite-${name}.tar.gz`);
  if (!existsSync(dumpFile)) {
    const builder = await PGlite.create({ ...(await compiledPglite()) });
    const database = await openDatabase({ pglite: builder });
    await prepare(database);
    const dump = await builder.dumpDataDir('gzip');
    await database.close();
    mkdirSync(cacheFolder, { recursive: true });
    // Written under a unique name, then renamed: parallel test files never read a half file.
    const partial = `${dumpFile}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, dumpFile);
  }
  return dumpFile;
}

async function createEmbeddedDatabase(migrationsFolder: string, hash: string): Promise<Database> {
  const dumpFile = await cachedDump(hash, (database) => runMigrations(database.db, migrationsFolder));
  // Like `npm start`: the database in a worker thread of its own, loaded from the template.
  return openDatabase({ dumpFile, wasmModules: await compiledPglite() });
}

/**
 * An empty embedded database in memory, as `openDatabase({})` opens one, but loaded from a cached
 * dump of a fresh cluster: PGlite's initdb costs seconds of CPU that tests need not pay each time.
 */
export async function createEmptyEmbeddedDatabase(
  options: Omit<OpenDatabaseOptions, 'url' | 'dataDir' | 'pglite' | 'dumpFile'> = {},
): Promise<Database> {
  const dumpFile = await cachedDump('empty', async () => {});
  return openDatabase({ ...options, dumpFile, wasmModules: await compiledPglite() });
}
