// Gives the system back the memory a service has freed but glibc's malloc still holds, and the
// room V8's young generation grew to under load.
//
// malloc keeps freed memory for reuse, and returns only what lies at the top of its heap: the
// memory V8's compilers and parser use while a service starts (tens of MB on each thread, freed
// once start-up is done) stays in the middle of it, and an idle service held 40 MB of it
// (docs/performance.md). `malloc_trim(0)` hands such free pages back; Node has no binding for it,
// so it is called through koffi, a foreign-function library that ships prebuilt binaries.
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Logger } from '../logger.js';

export interface FreedMemoryOptions {
  /** The first trim, once start-up's own work is done (ms after the call; default 3 s). */
  firstAfterMs?: number;
  /** How often to look again while the service settles, its first minute (default 1 s). */
  settlingEveryMs?: number;
  /** How often to look again after that (default 10 s): a burst of load is given back soon after it ends. */
  everyMs?: number;
}

/** What one trim did: the process's resident memory before and after, in MB, and its cost. */
export interface Trimmed {
  beforeMb: number;
  afterMb: number;
  ms: number;
}

export interface FreedMemoryRelease {
  /** Trims now; `undefined` where malloc_trim is not at hand (not glibc, or koffi missing). */
  trimNow(): Promise<Trimmed | undefined>;
  stop(): void;
}

/** Beyond this share of the last interval busy, the process is under load, and trimming waits. */
const busyUtilization = 0.2;
/** A later trim waits until the process has grown this much since the last one. */
const regrowthBytes = 8 * 1024 * 1024;
/** How long a service settles: its database optimises the code start-up ran most (below). */
const settlingMs = 60_000;
/** Beyond this, the young generation (two semi-spaces, 1 MB at least) has grown under load. */
const grownYoungBytes = 4 * 1024 * 1024;

/** V8's `gc()`, there when node runs with `--expose-gc`, as the services do (scripts/service-runtime.ts). */
const collectGarbage = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;

const youngGenerationBytes = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/**
 * Trims once start-up is over, then after each spell of work that grew the process: at each look,
 * when the event loop was mostly idle since the last one and resident memory has grown 8 MB
 * since the last trim. A trim takes a few ms with malloc's locks held, so it waits for a quiet
 * moment rather than pausing requests under load. The first minute is looked at every second: in
 * it the embedded database optimises the WebAssembly functions that start-up ran most, and
 * V8's optimising compiler takes up to 35 MB for one function (measured with
 * --trace-wasm-compilation-times), freed when it is done. The timers do not hold the process.
 */
export function releaseFreedMemory(logger: Logger, options: FreedMemoryOptions = {}): FreedMemoryRelease {
  let mallocTrim: Promise<((pad: number) => number) | undefined> | undefined;
  let afterLastTrim = 0;
  let lastUtilization = performance.eventLoopUtilization();

  const trimNow = async (): Promise<Trimmed | undefined> => {
    const trim = await (mallocTrim ??= loadMallocTrim(logger));
    if (!trim) return undefined;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    trim(0);
    const ms = performance.now() - started;
    afterLastTrim = process.memoryUsage.rss();
    const trimmed = { beforeMb: toMb(before), afterMb: toMb(afterLastTrim), ms: Math.round(ms * 10) / 10 };
    logger.debug(trimmed, 'freed memory given back to the system');
    return trimmed;
  };

  /**
   * V8 grows the young generation under load (to 16 MB per semi-space) and keeps the room, and
   * shrinks it back at a collection only when little has been allocated for some seconds: an
   * idle service has no collection to do it. A minor one (well under a millisecond on an idle
   * heap) lets it happen.
   */
  const shrinkYoungGeneration = () => {
    const before = youngGenerationBytes();
    if (!collectGarbage || before <= grownYoungBytes) return;
    collectGarbage({ type: 'minor' });
    const after = youngGenerationBytes();
    if (after < before) logger.debug({ beforeMb: toMb(before), afterMb: toMb(after) }, 'young generation shrunk');
  };

  const look = () => {
    const utilization = performance.eventLoopUtilization(lastUtilization);
    lastUtilization = performance.eventLoopUtilization();
    if (utilization.utilization > busyUtilization) return;
    shrinkYoungGeneration();
    if (process.memoryUsage.rss() < afterLastTrim + regrowthBytes) return;
    void trimNow();
  };

  const startedAt = performance.now();
  const settlingEveryMs = options.settlingEveryMs ?? 1_000;
  const everyMs = options.everyMs ?? 10_000;
  let timer: NodeJS.Timeout;
  const next = () => {
    const settling = performance.now() - startedAt < settlingMs;
    timer = setTimeout(
      () => {
        look();
        next();
      },
      settling ? settlingEveryMs : everyMs,
    ).unref();
  };
  timer = setTimeout(() => {
    shrinkYoungGeneration();
    void trimNow();
    lastUtilization = performance.eventLoopUtilization();
    next();
  }, options.firstAfterMs ?? 3_000).unref();

  return {
    trimNow,
    stop() {
      clearTimeout(timer);
    },
  };
}

/** glibc's `malloc_trim`, or `undefined` (another C library, another system, koffi not installed). */
async function loadMallocTrim(logger: Logger): Promise<((pad: number) => number) | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const { default: koffi } = await import('koffi');
    const libc = koffi.load('libc.so.6');
    return libc.func('int malloc_trim(size_t pad)') as (pad: number) => number;
  } catch (error) {
    logger.debug({ err: error }, 'malloc_trim is not available: freed memory stays with malloc');
    return undefined;
  }
}

const toMb = (bytes: number) => Math.round(bytes / 1024 / 1024);
