// The embedded database's server: PGlite in a thread of its own, behind a private socket that the
// pg client connects to. Node's built-in modules only (no pg, no PGlite on this thread), so a
// service's entry can start it before it loads its own modules (`@app/db/embedded`): the database's
// thread opens PGlite while the request thread loads the rest (docs/performance.md).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { lockDataFolder } from './data-folder-lock.js';
import { raiseWasmTieringBudget } from './performance/wasm-tiering.js';

export interface PgliteWasmModules {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
}

export interface EmbeddedServerOptions {
  /** Folder of the database's files; `undefined` keeps it in memory (tests). */
  dataDir?: string;
  /** A PGlite dump (`dumpDataDir`, tar.gz) loaded instead of `dataDir` (tests start from a template). */
  dumpFile?: string;
  /** PGlite's WebAssembly, compiled already (tests compile it once per process); absent, PGlite compiles its own. */
  wasmModules?: PgliteWasmModules;
  /** PostgreSQL's shared_buffers (e.g. '16MB'); default `defaultSharedBuffers`. */
  sharedBuffers?: string;
  /** Hears that a lock left on `dataDir` by a dead process was taken over (default: console.warn). */
  warn?: (message: string) => void;
}

/** A running embedded server: where to connect, and how to stop it (its files written, its lock released). */
export interface EmbeddedServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The embedded page cache: a service's working set (its tables' hot pages and indexes) fits, and
 * what does not is read again from the system's file cache. 128 MB, PostgreSQL's default, was
 * most of an idle service's memory (docs/performance.md).
 */
export const defaultSharedBuffers = '16MB';

// The pool in front keeps one connection, but a client that the pool drops (pg-pool ends the
// client of every failed query) is still being closed when its replacement connects: a server
// limited to one connection would refuse that replacement.
export const socketConnections = 8;

/**
 * Locks `dataDir` for this process (a second one gets `DataFolderInUseError`, see
 * data-folder-lock.ts), runs initdb on a new folder, and starts PGlite in a worker thread.
 *
 * The answer is a promise a service's entry may hold while it loads its modules; a failure (the
 * folder in use) reaches whoever awaits it, and is not an unhandled rejection meanwhile.
 */
export function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const started = serveInWorker(options);
  started.catch(() => {});
  return started;
}

async function serveInWorker(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  let lock: { release(): void } | undefined;
  if (dataDir) {
    mkdirSync(path.dirname(dataDir), { recursive: true });
    lock = lockDataFolder(dataDir, path.normalize(options.dataDir!), warn);
  }
  const socket = privateSocket();
  try {
    const served = await startWorkerServer(options, dataDir, socket);
    return {
      url: socket.urlFor(served.address),
      async close() {
        try {
          await served.close();
        } finally {
          socket.remove();
          lock?.release();
        }
      },
    };
  } catch (error) {
    socket.remove();
    lock?.release();
    throw error;
  }
}

/**
 * Where the embedded database listens. It asks no password, so it listens on a Unix socket in a
 * folder only this user may open (mkdtemp makes it 0700): on a loopback TCP port any local user
 * could connect. Windows has no Unix socket that the pg client reaches, so there it stays on a
 * loopback port.
 */
export interface PrivateSocket {
  /** What the socket server listens on: a socket path, or a loopback host and a free port. */
  listen: { path: string } | { host: string; port: number };
  /** The connection URL for the address the server reports once listening. */
  urlFor(address: string): string;
  /** Removes the socket's folder (after the server has stopped). */
  remove(): void;
}

export function privateSocket(): PrivateSocket {
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

/**
 * PGlite runs every statement on the thread that holds it, and its WebAssembly PostgreSQL
 * costs more CPU than the HTTP work around it: in a worker thread it leaves the request
 * thread free, and the two use both cores.
 */
async function startWorkerServer(
  options: EmbeddedServerOptions,
  dataDir: string | undefined,
  socket: PrivateSocket,
): Promise<{ address: string; close(): Promise<void> }> {
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

/** Two 2 MB semi-spaces and V8's equal room for large young objects. */
const databaseYoungGenerationMb = 6;

/** Starts pglite-worker.mjs; `next` answers its next message (or rejects when the thread stops first). */
function startWorker(workerData: Record<string, unknown>) {
  raiseWasmTieringBudget();
  // The database's thread keeps a small young generation (2 MB semi-spaces): its JavaScript is
  // the protocol's messages, and a grown one would stay grown, no one there to shrink it.
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: databaseYoungGenerationMb },
  });
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
