// initdb of a new embedded data folder, run by embedded-server.ts in a process of its own: what
// initdb's WebAssembly touched, and what malloc kept of it, goes back to the system when the
// process ends. Run in a thread, the service held some 60 MB of it for its whole life.
// Arguments: the data folder, then shared_buffers (as pglite-worker.mjs starts PostgreSQL).
import { PGlite } from '@electric-sql/pglite';

const [dataDir, sharedBuffers] = process.argv.slice(2);
try {
  const pglite = await PGlite.create({
    dataDir,
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`],
  });
  await pglite.close();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
