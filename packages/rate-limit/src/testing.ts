import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { requireForTests } from '@app/http/testing';
import { createRedisClient, type Redis } from './redis-client.js';

/** The Redis the tests use: REDIS_URL, else the local default. */
export const testRedisUrl = (): string => process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * Whether a Redis server answers PING at `url`. Tests that need Redis skip themselves on a
 * machine without one (a fresh laptop running `npm test`), printing one line that says so,
 * except in CI (`CI=true`), where a missing Redis fails the run.
 */
export async function redisForTests(what: string, url = testRedisUrl()): Promise<boolean> {
  const answered = await pingRedis(url);
  return requireForTests(
    what,
    answered ? undefined : `Redis does not answer at ${url}: start redis-server or set REDIS_URL`,
  );
}

function pingRedis(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port) || 6379 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export interface TestRateLimitStore {
  /** Redis when REDIS_URL is set (the PostgreSQL test run); undefined: the in-memory store. */
  redis?: Redis;
  kind: 'redis' | 'memory';
  /** Deletes this store's keys and closes the connection. */
  close(): Promise<void>;
}

/**
 * The rate-limit store of a test: Redis when `REDIS_URL` is set, with a key prefix of its own so
 * the counts start at zero and no other test (or earlier run) shares them; memory otherwise.
 */
export function testRateLimitStore(url = process.env.REDIS_URL): TestRateLimitStore {
  if (!url) return { kind: 'memory', async close() {} };
  const keyPrefix = `test-${randomBytes(6).toString('hex')}:`;
  const redis = createRedisClient(url, { keyPrefix });
  return {
    redis,
    kind: 'redis',
    async close() {
      // KEYS answers full names; DEL through this client adds the prefix again, so strip it.
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length) await redis.del(...keys.map((key) => key.slice(keyPrefix.length)));
      await redis.quit();
    },
  };
}
