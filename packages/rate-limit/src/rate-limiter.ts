import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, MemoryStore, rateLimit, type Store } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Redis } from 'ioredis';
import { appError, type Logger } from '@app/http';
import { CarriedOverMemoryStore } from './memory-store.js';

export interface RateLimitValues {
  limit: number;
  windowMs: number;
  /** `false` lets every request through. Default `true`. */
  enabled?: boolean;
}

export interface RateLimiterOptions {
  /** Names the counter: the Redis key prefix, e.g. 'paste:web'. */
  name: string;
  /** Shared store when set (several instances, one count); in-process memory otherwise. */
  redis?: Redis;
  /** Read when the limiter is built and at every `rebuild()`. */
  current: () => RateLimitValues;
  /** Error text of the 429 answer. */
  message: string;
  skip?: (req: Request, res: Response) => boolean;
  /**
   * The signed-in person a request counts against, by their user id; `undefined` counts it
   * against the client IP. A person gets a count of their own, apart from everyone behind the
   * same address (and from their own address's anonymous traffic). Return an id only for a
   * verified identity (a session user or a checked token), never for a claimed one.
   */
  identify?: (req: Request, res: Response) => string | undefined;
  /** Where store errors (Redis unreachable) are logged; the console otherwise. */
  logger?: Pick<Logger, 'error' | 'warn'>;
}

export interface RebuildableLimiter {
  middleware: RequestHandler;
  /** Applies `current()` to the next request, keeping the hits already counted in the window. */
  rebuild(): void;
}

const passThrough: RequestHandler = (_req, _res, next) => next();

export function createRateLimiter(options: RateLimiterOptions): RebuildableLimiter {
  const prefix = `rl:${options.name}:`;
  // One count for the limiter's whole life: every rebuilt instance reads and writes the same
  // Redis keys (same prefix) or the same in-process counts.
  const memoryCounts = options.redis ? undefined : new MemoryStore();
  const newStore = (): Store =>
    options.redis
      ? newRedisStore(options.redis, prefix)
      : new CarriedOverMemoryStore(memoryCounts!);

  const build = (): RequestHandler => {
    const { limit, windowMs, enabled = true } = options.current();
    if (!enabled) return passThrough;
    return rateLimit({
      windowMs,
      limit,
      legacyHeaders: true, // X-RateLimit-Limit, -Remaining, -Reset (Unix seconds, rounded up)
      standardHeaders: false,
      store: newStore(),
      keyGenerator: (req, res) => keyOf(req, res, options.identify),
      skip: options.skip,
      handler: (_req, _res, next) => next(appError('TOO_MANY_REQUESTS', { message: options.message })),
      // A Redis outage must not take the service down with it: requests pass uncounted.
      passOnStoreError: true,
      // rebuild() runs from a settings request on purpose.
      validate: { creationStack: false },
      ...(options.logger ? { logger: options.logger } : {}),
    });
  };

  let active = build();
  return {
    middleware: (req, res, next) => active(req, res, next),
    rebuild() {
      active = build();
    },
  };
}

/** `user:<id>` for an identified person; the client IP (an IPv6 client by its /56) otherwise. */
function keyOf(req: Request, res: Response, identify: RateLimiterOptions['identify']): string {
  const userId = identify?.(req, res);
  if (userId !== undefined) return `user:${userId}`;
  // An IP never starts with "user:", so the two kinds of key cannot meet.
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

function newRedisStore(redis: Redis, prefix: string): RedisStore {
  const store = new RedisStore({
    prefix,
    sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
  });
  // The store loads its Lua scripts at once. While Redis is unreachable those promises reject
  // before any request awaits them, which would end the process (unhandled rejection); the
  // store loads them again on the next request, so the first failure can be ignored.
  store.incrementScriptSha.catch(() => {});
  store.getScriptSha.catch(() => {});
  return store;
}
