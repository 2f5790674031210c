// The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly) and the socket
// server that speaks the PostgreSQL protocol for it. Every statement runs here, so the request
// thread only does HTTP and the pg client's work; it connects to the socket posted back
// (a Unix socket in a private folder; see privateSocket in embedded-server.ts).
//
// Plain JavaScript on purpose: a worker thread does not inherit the TypeScript loader of vitest
// (or the bundle of `npm run build`), and this file is copied beside each app's bundle as is.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** @type {{ dataDir?: string; dumpFile?: string; wasmModules?: { pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module }; sharedBuffers: string; maxConnections: number; listen: { path: string } | { host: string; port: number } }} */
const options = workerData;
// Modules compiled once by the parent (tests open hundreds of databases per process), or here.
const compiled = options.wasmModules ?? compileWasmModules();

/**
 * PGlite's WebAssembly, compiled synchronously from its files. PGlite would read each file
 * asynchronously, and its 9 MB of bytes (V8 keeps a copy of its own) lived on until a full
 * garbage collection, which an idle service may never run. Compiled in one synchronous step, the
 * bytes are young garbage the next minor collection frees, a few milliseconds later.
 */
function compileWasmModules() {
  const compile = (file) =>
    new WebAssembly.Module(readFileSync(new URL(file, import.meta.resolve('@electric-sql/pglite'))));
  return { pgliteWasmModule: compile('./pglite.wasm'), initdbWasmModule: compile('./initdb.wasm') };
}

// PostgreSQL's page cache lives in PGlite's WebAssembly memory, touched page by page as it fills
// and never given back: its default of 128 MB was most of an idle service's memory. Pages it
// drops are still in the operating system's file cache, one read away.
const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`];

let pglite;
let server;
try {
  pglite = options.dumpFile
    ? await PGlite.create({ loadDataDir: new Blob([readFileSync(options.dumpFile)]), ...compiled, startParams })
    : await PGlite.create({ dataDir: options.dataDir, ...compiled, startParams });
  server = new PGLiteSocketServer({ db: pglite, ...options.listen, maxConnections: options.maxConnections });
  await server.start();
  parentPort.postMessage({ ready: server.getServerConn() });
} catch (error) {
  parentPort.postMessage({ failed: error instanceof Error ? `${error.message}` : String(error) });
}

parentPort.on('message', async (message) => {
  if (message !== 'close') return;
  // The data reaches its files only when PGlite closes; the thread ends after that.
  try {
    await server?.stop();
    if (pglite && !pglite.closed) await pglite.close();
    parentPort.postMessage({ closed: true });
  } catch (error) {
    parentPort.postMessage({ closed: false, failed: error instanceof Error ? error.message : String(error) });
  }
  parentPort.close();
});
