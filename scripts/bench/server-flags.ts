import { serviceNodeFlags } from '../service-runtime.js';

/**
 * The V8 flags of a bench's server process: production's (scripts/service-runtime.ts), so the
 * bench measures what runs, unless BENCH_NODE_FLAGS gives others ('' for Node's defaults).
 * Source maps are tsx's business here.
 */
export function benchServerFlags(): string[] {
  const given = process.env.BENCH_NODE_FLAGS;
  if (given !== undefined) return given.split(' ').filter(Boolean);
  return serviceNodeFlags.filter((flag) => flag !== '--enable-source-maps');
}
