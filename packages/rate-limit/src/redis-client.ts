import { Redis } from 'ioredis';

/**
 * The Redis connection the rate limiters of one process share. A request must not wait
 * forever while Redis is away: one retry, then the limiter's store error lets it through
 * (see `passOnStoreError` in rate-limiter.ts).
 */
export function createRedisClient(url: string, options: { keyPrefix?: string } = {}): Redis {
  // keyPrefix (e.g. a unique one per test) keeps every key of this client apart from others'.
  return new Redis(url, { maxRetriesPerRequest: 1, enableAutoPipelining: true, ...options });
}

export type { Redis };
