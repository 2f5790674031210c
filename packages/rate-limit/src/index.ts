export { createRedisClient, type Redis } from './redis-client.js';
export {
  createRateLimiter,
  type RateLimiterOptions,
  type RateLimitValues,
  type RebuildableLimiter,
} from './rate-limiter.js';
