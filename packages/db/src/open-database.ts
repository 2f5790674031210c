import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataFolder, type DataFolderLock } from './data-folder-lock.js';
import { startEmbeddedVacuum } from './embedded-vacuum.js';
import { retryPoolQueries } from './retry.js';
import { createReplicaReads, type ReplicaReads } from './read-replica.js';

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
  /**
   * An existing PGlite instance to serve on this thread (tests that build a template). Without
   * it the embedded database runs in a worker thread of its own.
   */
  pglite?: PGlite;
  /** A PGlite dump (`dumpDataDir`, tar.gz) the worker loads instead of `dataDir` (tests start from a template). */
  dumpFile?: string;
  /**
   * PGlite's WebAssembly, compiled already (tests compile it once per process: testing/test-database.ts):
   * compiling it costs about a second of CPU, which tests would pay for every database they open.
   */
  wasmModules?: PgliteWasmModules;
  /**
   * The embedded database's page cache (PostgreSQL's shared_buffers, e.g. '16MB'); default
   * 16MB. It is memory the service holds for good once filled.
   */
  sharedBuffers?: string;
  /**
   * Hears that a lock left on `dataDir` by a dead process was taken over, or that the embedded
   * database's maintenance failed (default: console.warn).
   */
  warn?: (message: string) => void;
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
}

export interface PgliteWasmModules {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
}

export interface Database {
  pool: pg.Pool;
  db: NodePgDatabase;
  mode: 'server' | 'embedded';
  /** The URL a second client (pg-boss, psql) can connect with. */
  url: string;
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
  const pool = new pg.Pool({ connectionString: url, max });
  retryPoolQueries(pool);
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const reads = createReplicaReads({
    primary: pool,
    replicaUrl: options.replicaUrl,
    maxConnections: max,
    log: options.replicaLog,
  });
  return {
    pool,
    db: drizzle(pool),
    mode: 'server',
    url,
    reads,
    async close() {
      await reads.close();
      await pool.end();
    },
  };
}

// The pool below keeps one connection, but a client that the pool drops (pg-pool ends the
// client of every failed query) is still being closed when its replacement connects: a server
// limited to one connection would refuse that replacement.
const socketConnections = 8;

/**
 * The embedded page cache: a service's working set (its tables' hot pages and indexes) fits, and
 * what does not is read again from the system's file cache. 128 MB, PostgreSQL's default, was
 * most of an idle service's memory (docs/footprint.md).
 */
export const defaultSharedBuffers = '16MB';

async function openEmbedded(options: OpenDatabaseOptions): Promise<Database> {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  let lock: DataFolderLock | undefined;
  if (!options.pglite && options.dataDir) {
    const folder = path.resolve(options.dataDir);
    mkdirSync(path.dirname(folder), { recursive: true });
    lock = lockDataFolder(folder, path.normalize(options.dataDir), warn);
  }
  const socket = privateSocket();
  let served: EmbeddedServer;
  try {
    served = options.pglite ? await serveOnThisThread(options.pglite, socket) : await serveInWorker(options, socket);
  } catch (error) {
    socket.remove();
    lock?.release();
    throw error;
  }
  const url = socket.urlFor(served.address);
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
  return {
    pool,
    db: drizzle(pool),
    mode: 'embedded',
    url,
    reads: createReplicaReads({ primary: pool }),
    async close() {
      await vacuum.stop();
      await pool.end();
      try {
        await served.close();
      } finally {
        socket.remove();
        lock?.release();
      }
    },
  };
}

/**
 * Where the embedded database listens. It asks no password, so it listens on a Unix socket in a
 * folder only this user may open (mkdtemp makes it 0700): on a loopback TCP port any local user
 * could connect. Windows has no Unix socket that the pg client reaches, so there it stays on a
 * loopback port.
 */
interface PrivateSocket {
  /** What the socket server listens on: a socket path, or a loopback host and a free port. */
  listen: { path: string } | { host: string; port: number };
  /** The connection URL for the address the server reports once listening. */
  urlFor(address: string): string;
  /** Removes the socket's folder (after the server has stopped). */
  remove(): void;
}

function privateSocket(): PrivateSocket {
  if (process.platform === 'win32') {
    return {
      listen: { host: '127.0.0.1', port: 0 },
      urlFor: (address) => `postgresql://postgres@${address}/postgres`,
      remove() {},
    };
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'pglite-'));
  return {
    // The file name the pg client derives from its host (a folder) and port (5432).
    listen: { path: path.join(folder, '.s.PGSQL.5432') },
    urlFor: () => `postgresql://postgres@/postgres?host=${encodeURIComponent(folder)}`,
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

interface EmbeddedServer {
  /** The socket server's address: its socket path, or host:port. */
  address: string;
  /** Stops the socket server and closes PGlite (which writes its files). */
  close(): Promise<void>;
}

async function serveOnThisThread(pglite: PGlite, socket: PrivateSocket): Promise<EmbeddedServer> {
  const server = new PGLiteSocketServer({ db: pglite, ...socket.listen, maxConnections: socketConnections });
  await server.start();
  return {
    address: server.getServerConn(),
    async close() {
      await server.stop();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/**
 * PGlite runs every statement on the thread that holds it, and its WebAssembly PostgreSQL
 * costs more CPU than the HTTP work around it: in a worker thread it leaves the request
 * thread free, and the two use both cores.
 */
async function serveInWorker(options: OpenDatabaseOptions, socket: PrivateSocket): Promise<EmbeddedServer> {
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  const workerData = {
    dataDir,
    dumpFile: options.dumpFile,
    wasmModules: options.wasmModules,
    sharedBuffers: options.sharedBuffers ?? defaultSharedBuffers,
    maxConnections: socketConnections,
    listen: socket.listen,
  };
  if (dataDir && !existsSync(path.join(dataDir, 'PG_VERSION'))) await initdb(dataDir, workerData.sharedBuffers);
  const { worker, next } = startWorker(workerData);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const started = await next();
  if (!started.ready) {
    await worker.terminate();
    throw new Error(`The embedded database did not start: ${started.failed ?? 'no answer'}`);
  }
  let closing: Promise<void> | undefined;
  return {
    address: started.ready,
    close() {
      closing ??= (async () => {
        const closed = next();
        worker.postMessage('close');
        const answer = await closed.catch((error: unknown) => ({ failed: String(error) }));
        await exited;
        if ('failed' in answer && answer.failed)
          throw new Error(`The embedded database did not close cleanly: ${answer.failed}`);
      })();
      return closing;
    },
  };
}

/**
 * V8 optimises a WebAssembly function once it has run through a budget of work. With the default
 * budget, start-up and migrations alone optimise much of PostgreSQL, and the compiler's memory
 * stays with the process: an idle embedded service held about 55 MB more than with a budget a
 * hundred times larger. The functions a steady load keeps running still reach the larger budget
 * within seconds (bench:license, bench:paste). The flag is process-wide and only the database runs
 * WebAssembly here; set before the database's thread starts, it applies to its module. A budget
 * given on the command line is left alone.
 */
const wasmTieringBudget = 180_000_000;
function raiseWasmTieringBudget(): void {
  if (process.execArgv.some((flag) => flag.startsWith('--wasm-tiering-budget'))) return;
  setFlagsFromString(`--wasm-tiering-budget=${wasmTieringBudget}`);
}

/** A new data folder's initdb, in a process of its own whose memory is the system's again when it ends (pglite-initdb.mjs). */
async function initdb(dataDir: string, sharedBuffers: string): Promise<void> {
  const script = fileURLToPath(new URL('./pglite-initdb.mjs', import.meta.url));
  try {
    await execFileAsync(process.execPath, [script, dataDir, sharedBuffers]);
  } catch (error) {
    const said = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`The embedded database did not start: ${said || String(error)}`, { cause: error });
  }
}

const execFileAsync = promisify(execFile);

type WorkerMessage = { ready?: string; failed?: string; closed?: boolean };

/** Starts pglite-worker.mjs; `next` answers its next message (or rejects when the thread stops first). */
function startWorker(workerData: Record<string, unknown>) {
  raiseWasmTieringBudget();
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData });
  const next = () =>
    new Promise<WorkerMessage>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`the embedded database's thread stopped (exit code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (message: WorkerMessage) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(message);
      });
    });
  return { worker, next };
}
