import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataFolder, type DataFolderLock } from './data-folder-lock.js';
import { retryPoolQueries } from './retry.js';

// node-postgres returns BIGINT (int8, e.g. COUNT(*)) as a string; every count this project
// reads fits well within a double, so read them as numbers once, here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export interface OpenDatabaseOptions {
  /** A PostgreSQL server's URL; when absent an embedded PGlite is used. */
  url?: string;
  /** Folder of the embedded database's files; `undefined` keeps it in memory (tests). */
  dataDir?: string;
  /** Largest number of server connections the pool may open. */
  maxConnections?: number;
  /** An existing PGlite instance to serve (tests load one from a template dump). */
  pglite?: PGlite;
  /** Hears that a lock left on `dataDir` by a dead process was taken over (default: console.warn). */
  warn?: (message: string) => void;
}

export interface Database {
  pool: pg.Pool;
  db: NodePgDatabase;
  mode: 'server' | 'embedded';
  /** The URL a second client (pg-boss, psql) can connect with. */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens the database. Statements sent through `pool.query` are retried once after a transient
 * failure where that is safe (see retry.ts). An embedded `dataDir` is locked for this process:
 * a second process gets `DataFolderInUseError` (see data-folder-lock.ts).
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) return openServer(options.url, options.maxConnections ?? 20);
  return openEmbedded(options);
}

function openServer(url: string, max: number): Database {
  const pool = new pg.Pool({ connectionString: url, max });
  retryPoolQueries(pool);
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return { pool, db: drizzle(pool), mode: 'server', url, close: () => pool.end() };
}

async function openEmbedded(options: OpenDatabaseOptions): Promise<Database> {
  let pglite = options.pglite;
  let lock: DataFolderLock | undefined;
  if (!pglite) {
    if (options.dataDir) {
      const folder = path.resolve(options.dataDir);
      mkdirSync(path.dirname(folder), { recursive: true });
      lock = lockDataFolder(folder, path.normalize(options.dataDir), options.warn ?? ((message) => console.warn(message)));
    }
    try {
      pglite = await PGlite.create(options.dataDir ? path.resolve(options.dataDir) : undefined);
    } catch (error) {
      lock?.release();
      throw error;
    }
  }
  // The pool below keeps one connection, but a client that the pool drops (pg-pool ends the
  // client of every failed query) is still being closed when its replacement connects: a server
  // limited to one connection would refuse that replacement.
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const url = `postgresql://postgres@${server.getServerConn()}/postgres`;
  // PGlite is one connection; the socket server multiplexes at the query level, which would
  // interleave the statements of concurrent transactions. One pooled connection keeps every
  // transaction whole: the pool queues the rest.
  //
  // Every socket connection shares PGlite's one session, so the named prepared statements of a
  // dropped client outlive it, and its replacement would meet "prepared statement already
  // exists". The pool's clients are the only ones that name statements: a new one starts clean.
  const pool = new pg.Pool({ connectionString: url, max: 1, onConnect: (client) => client.query('DEALLOCATE ALL') });
  retryPoolQueries(pool);
  pool.on('error', () => {});
  const instance = pglite;
  return {
    pool,
    db: drizzle(pool),
    mode: 'embedded',
    url,
    async close() {
      await pool.end();
      await server.stop();
      if (!options.pglite || !instance.closed) await instance.close();
      lock?.release();
    },
  };
}
