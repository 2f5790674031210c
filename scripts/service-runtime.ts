// How a service's Node process runs: under `npm start`, in bench:footprint's compiled runs, and in
// the Docker image (its ENV and CMD say the same; service-runtime.test.ts holds them together).

/**
 * `--expose-gc`: an idle service runs a minor collection, so that V8 shrinks the young generation
 * it grew under load (packages/http/src/performance/freed-memory.ts). It had been held at 2 MB per
 * semi-space (`--max-semi-space-size=2`) to keep an idle service small, at which a validation
 * cost half as much CPU again, most of it collecting (docs/performance.md).
 */
export const serviceNodeFlags = ['--enable-source-maps', '--expose-gc'];

/**
 * glibc gives each thread that allocates its own 64 MB arena: two arenas keep the memory of the
 * request thread, the database's thread and libuv's pool from spreading over many.
 */
export const serviceEnv = { MALLOC_ARENA_MAX: '2' };
