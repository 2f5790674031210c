import { isIPv4 } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, type Options } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Redis } from 'ioredis';
import { appError, type Logger } from '@app/http';
import { WindowCounts, type WindowCount } from './memory-store.js';

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

/**
 * A fixed window per client: `limit` requests per `windowMs`, counted in Redis when given
 * (rate-limit-redis's store: one count across instances) or in this process. Every counted
 * answer carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds, rounded up); one over
 * the limit gets Retry-After and a 429 with `message`.
 *
 * The middleware is ours rather than express-rate-limit's: its middleware (a chain of awaits,
 * per-request checks, a Date header) cost several times what this one does, and every public
 * request passes a limiter. The stores and the client key
 * (`ipKeyGenerator`, see `ipKey`) remain the libraries'.
 */
export function createRateLimiter(options: RateLimiterOptions): RebuildableLimiter {
  const logger = options.logger ?? { error: (error: unknown, message: string) => console.error(message, error) };
  // One count for the limiter's whole life: the same Redis keys (same prefix) or the same
  // in-process counts for every rebuilt instance.
  const memory = options.redis ? undefined : new WindowCounts();
  const redisStore = options.redis ? newRedisStore(options.redis, `rl:${options.name}:`) : undefined;

  const build = (): RequestHandler => {
    const { limit, windowMs, enabled = true } = options.current();
    if (!enabled) return passThrough;
    // The store reads only the window from express-rate-limit's options.
    redisStore?.init({ windowMs } as Options);
    const limitHeader = String(limit);

    const answer = (res: Response, next: (error?: unknown) => void, count: WindowCount) => {
      if (!res.headersSent) {
        res.setHeader('X-RateLimit-Limit', limitHeader);
        res.setHeader('X-RateLimit-Remaining', String(Math.max(limit - count.totalHits, 0)));
        res.setHeader('X-RateLimit-Reset', String(Math.ceil(count.resetMs / 1000)));
      }
      if (count.totalHits <= limit) return next();
      if (!res.headersSent)
        res.setHeader('Retry-After', String(Math.max(0, Math.ceil((count.resetMs - Date.now()) / 1000))));
      next(appError('TOO_MANY_REQUESTS', { message: options.message }));
    };

    return (req, res, next) => {
      if (options.skip?.(req, res)) return next();
      const key = keyOf(req, res, options.identify);
      if (memory) return answer(res, next, memory.hit(key, windowMs, Date.now()));
      redisStore!.increment(key).then(
        ({ totalHits, resetTime }) =>
          answer(res, next, { totalHits, resetMs: resetTime?.getTime() ?? Date.now() + windowMs }),
        // A Redis outage must not take the service down with it: requests pass uncounted.
        (error: unknown) => {
          logger.error(error, 'rate limit store failed; the request passes uncounted');
          next();
        },
      );
    };
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
  // An IP never starts with "user:", so the two kinds of key cannot meet. Without an
  // X-Forwarded-For header, req.ip is the socket's address whatever 'trust proxy' says; reading
  // it directly skips proxy-addr's parsing (a measurable part of a small request).
  const ip = req.headers['x-forwarded-for'] === undefined ? req.socket.remoteAddress : req.ip;
  return ipKey(ip ?? req.socket.remoteAddress ?? 'unknown');
}

const mappedIpv4 = /^::ffff:([\d.]+)$/i;
const ipv6Keys = new Map<string, string>();

/**
 * `ipKeyGenerator`'s key, without its cost where it is known: it parses every IPv6 address
 * (slow next to a request's other work), and a server listening on both stacks sees each IPv4 client as `::ffff:a.b.c.d`,
 * whose key is the IPv4 address. Other IPv6 keys are remembered (the last 10,000 addresses).
 */
function ipKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const mapped = mappedIpv4.exec(ip)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  let key = ipv6Keys.get(ip);
  if (key === undefined) {
    if (ipv6Keys.size >= 10_000) ipv6Keys.clear();
    key = ipKeyGenerator(ip);
    ipv6Keys.set(ip, key);
  }
  return key;
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
