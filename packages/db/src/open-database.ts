import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import {
  privateSocket,
  socketConnections,
  startEmbeddedServer,
  type EmbeddedServer,
  type EmbeddedServerOptions,
} from './embedded-server.js';
import { startEmbeddedVacuum } from './embedded-vacuum.js';
import { retryPoolQueries } from './retry.js';
import { createReplicaReads, type ReplicaReads } from './read-replica.js';
import { clientFor, type PoolMode } from './pooled-client.js';

// node-postgres returns BIGINT (int8, e.g. COUNT(*)) as a string; every count this project
// reads fits well within a double, so read them as numbers once, here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

/** The embedded database's options (dataDir, sharedBuffers, warn, ...) are those of embedded-server.ts. */
export interface OpenDatabaseOptions extends EmbeddedServerOptions {
  /** A PostgreSQL server's URL; when absent an embedded PGlite is used. */
  url?: string;
  /** Largest number of server connections the pool may open. */
  maxConnections?: number;
  /**
   * An embedded server started already with these options (`startEmbeddedServer`): a service's
   * entry starts it before loading its modules, so the two overlap.
   */
  started?: Promise<EmbeddedServer>;
  /**
   * An existing PGlite instance to serve on this thread (tests that build a template). Without
   * it the embedded database runs in a worker thread of its own.
   */
  pglite?: PGlite;
  /**
   * How often the embedded database checks which tables need a vacuum or an analyze, the work
   * of PostgreSQL's autovacuum, which PGlite lacks (see embedded-vacuum.ts); default 10 s.
   */
  vacuumIntervalMs?: number;
  /**
   * A streaming replica of the server (DATABASE_REPLICA_URL) that `reads` uses while it is up
   * and less than 10 s behind; ignored for the embedded database.
   */
  replicaUrl?: string;
  /** Hears the replica bypassed or back in use (default: console.warn). */
  replicaLog?: (message: string, level: 'warn' | 'info') => void;
  /**
   * `transaction` when `url` (and `replicaUrl`) go through a pooler in transaction mode
   * (PgBouncer's `pool_mode = transaction`, DATABASE_POOL_MODE): every statement is then sent
   * unnamed (see pooled-client.ts). Default `session`: a direct connection or a session pooler.
   */
  poolMode?: PoolMode;
  /**
   * A direct connection to the same database for the migrations (DATABASE_MIGRATION_URL), when
   * `url` goes through a pooler: `migrationDb` uses it. Ignored for the embedded database.
   */
  migrationUrl?: string;
}

export interface Database {
  pool: pg.Pool;
  db: NodePgDatabase;
  mode: 'server' | 'embedded';
  /** The URL a second client (pg-boss, psql) can connect with. */
  url: string;
  /**
   * Where `runMigrations` runs: a pool of one connection on `migrationUrl` when one is given
   * (opened at the first migration, closed with the database), else `db`.
   */
  migrationDb: NodePgDatabase;
  /**
   * Where lists, pages, statistics and exports read: the replica when one is configured and
   * well, else `pool` (read-replica.ts).
   */
  reads: ReplicaReads;
  close(): Promise<void>;
}

/**
 * Opens the database. Statements sent through `pool.query` are retried once after a transient
 * failure where that is safe (see retry.ts). An embedded `dataDir` is locked for this process:
 * a second process gets `DataFolderInUseError` (see data-folder-lock.ts).
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) return openServer(options.url, options.maxConnections ?? 20, options);
  return openEmbedded(options);
}

function openServer(url: string, max: number, options: OpenDatabaseOptions): Database {
  const Client = clientFor(options.poolMode ?? 'session');
  const pool = new pg.Pool({ connectionString: url, max, Client });
  retryPoolQueries(pool);
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const reads = createReplicaReads({
    primary: pool,
    replicaUrl: options.replicaUrl,
    maxConnections: max,
    log: options.replicaLog,
    Client,
  });
  // pg.Pool connects on first use: without a migration, nothing is opened.
  const migrationPool = options.migrationUrl
    ? new pg.Pool({ connectionString: options.migrationUrl, max: 1 })
    : undefined;
  migrationPool?.on('error', () => {});
  const db = drizzle(pool);
  return {
    pool,
    db,
    migrationDb: migrationPool ? drizzle(migrationPool) : db,
    mode: 'server',
    url,
    reads,
    async close() {
      await reads.close();
      await migrationPool?.end();
      await pool.end();
    },
  };
}

async function openEmbedded(options: OpenDatabaseOptions): Promise<Database> {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const served = options.pglite
    ? await serveOnThisThread(options.pglite)
    : await (options.started ?? startEmbeddedServer(options));
  const url = served.url;
  // PGlite is one connection; the socket server multiplexes at the query level, which would
  // interleave the statements of concurrent transactions. One pooled connection keeps every
  // transaction whole: the pool queues the rest.
  //
  // Every socket connection shares PGlite's one session, so the named prepared statements of a
  // dropped client outlive it, and its replacement would meet "prepared statement already
  // exists". The pool's clients are the only ones that name statements: a new one starts clean.
  //
  // Named statements (and PL/pgSQL's) keep one generic plan: in PGlite, planning runs in
  // WebAssembly on the database's one thread, and a batch of views spent twice as long being
  // planned as being run. PostgreSQL's default would keep planning such a statement each time
  // (its generic estimate for an array's rows looks worse). A generic plan made on a small table
  // is replaced when the maintenance analyzes the table (embedded-vacuum.ts).
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- pg-pool waits for onConnect's promise before handing out the client; @types/pg says void.
    onConnect: (client) => client.query('DEALLOCATE ALL; SET plan_cache_mode = force_generic_plan'),
  });
  retryPoolQueries(pool);
  pool.on('error', () => {});
  const vacuum = startEmbeddedVacuum(pool, { intervalMs: options.vacuumIntervalMs ?? 10_000, warn });
  const db = drizzle(pool);
  return {
    pool,
    db,
    migrationDb: db,
    mode: 'embedded',
    url,
    reads: createReplicaReads({ primary: pool }),
    async close() {
      await vacuum.stop();
      await pool.end();
      await served.close();
    },
  };
}

/** Serves a PGlite of this thread (tests that build a template) on a private socket. */
async function serveOnThisThread(pglite: PGlite): Promise<EmbeddedServer> {
  const socket = privateSocket();
  const server = new PGLiteSocketServer({ db: pglite, ...socket.listen, maxConnections: socketConnections });
  try {
    await server.start();
  } catch (error) {
    socket.remove();
    throw error;
  }
  return {
    url: socket.urlFor(server.getServerConn()),
    async close() {
      try {
        await server.stop();
        if (!pglite.closed) await pglite.close();
      } finally {
        socket.remove();
      }
    },
  };
}
