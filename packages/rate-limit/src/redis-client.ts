import { Redis } from 'ioredis';

/**
 * The Redis connection the rate limiters of one process share. A request must not wait
 * forever while Redis is away: one retry, then the limiter's store error lets it through
 * (see `passOnStoreError` in rate-limiter.ts).
 */
export function createRedisClient(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, enableAutoPipelining: true });
}

export type { Redis };
