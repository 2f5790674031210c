// How a service's Node process runs: under `npm start`, in bench:footprint's compiled runs, and in
// the Docker image (its ENV and CMD say the same; service-runtime.test.ts holds them together).

/**
 * `--max-semi-space-size=2`: V8 lets the young generation grow to 16 MB per semi-space, room it
 * keeps once grown; at 2 MB an idle service holds 15–25 MB less, for more frequent (short)
 * scavenges under load (docs/footprint.md, bench:footprint).
 */
export const serviceNodeFlags = ['--enable-source-maps', '--max-semi-space-size=2'];

/**
 * glibc gives each thread that allocates its own 64 MB arena: two arenas keep the memory of the
 * request thread, the database's thread and libuv's pool from spreading over many.
 */
export const serviceEnv = { MALLOC_ARENA_MAX: '2' };
