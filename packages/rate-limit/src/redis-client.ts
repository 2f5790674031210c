import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// ioredis is loaded by the first client: a service without REDIS_URL need not hold it (some
// 15 MB, docs/performance.md). It is a CommonJS package, so `require` keeps this function synchronous.
const require = createRequire(import.meta.url);

/**
 * The Redis connection the rate limiters of one process share. A request must not wait
 * forever while Redis is away: one retry, then the limiter's store error lets it through
 * (see `passOnStoreError` in rate-limiter.ts).
 */
export function createRedisClient(url: string, options: { keyPrefix?: string } = {}): Redis {
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  // keyPrefix (e.g. a unique one per test) keeps every key of this client apart from others'.
  return new RedisClient(url, { maxRetriesPerRequest: 1, enableAutoPipelining: true, ...options });
}

export type { Redis };
