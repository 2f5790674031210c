import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { createErrorHandler, createLogger } from '@app/http';
import {
  createRateLimiter,
  createRedisClient,
  type RateLimitValues,
  type Redis,
  type RebuildableLimiter,
} from '../src/index.js';
import { redisForTests, testRedisUrl } from '../src/testing.js';

const redisUrl = testRedisUrl();
const withRedis = await redisForTests('rate limits shared through Redis', redisUrl);
const logger = createLogger({ level: 'silent' });
const servers: Server[] = [];
const clients: Redis[] = [];
const prefixes: string[] = [];

/** A limiter name no other test (or test run) shares, so Redis counts start at zero. */
const uniqueName = (label: string) => {
  const name = `test:${label}:${randomBytes(4).toString('hex')}`;
  prefixes.push(`rl:${name}:`);
  return name;
};

const redisClient = () => {
  const client = createRedisClient(redisUrl);
  clients.push(client);
  return client;
};

/** One app instance as the services build it: the limiter in front of a route, then the one error handler. */
async function startApp(limiter: RebuildableLimiter, trustProxy = false): Promise<string> {
  const app = express();
  app.set('trust proxy', trustProxy);
  app.use(limiter.middleware);
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(createErrorHandler({ successFlag: false, logger }));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Answer {
  status: number;
  limit: string | null;
  remaining: string | null;
  reset: string | null;
  body: unknown;
}
async function hit(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
    body: await response.json(),
  };
}

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  if (!withRedis) return;
  const cleaner = createRedisClient(redisUrl);
  for (const prefix of prefixes) {
    const keys = await cleaner.keys(`${prefix}*`);
    if (keys.length) await cleaner.del(...keys);
  }
  await cleaner.quit();
  await Promise.all(clients.map((client) => client.quit()));
});

describe.runIf(withRedis)('with Redis, two app instances', () => {
  it('share a limit of 10 exactly: 10 alternating requests pass counting down, the 11th answers 429', async () => {
    const name = uniqueName('shared');
    const values = () => ({ limit: 10, windowMs: 60_000 });
    // Two instances: each its own Redis connection and limiter, as two processes would have.
    const urls = [
      await startApp(createRateLimiter({ name, redis: redisClient(), current: values, message: 'Too many requests' })),
      await startApp(createRateLimiter({ name, redis: redisClient(), current: values, message: 'Too many requests' })),
    ];
    const startedSeconds = Date.now() / 1000;
    const answers: Answer[] = [];
    for (let i = 0; i < 11; i++) answers.push(await hit(urls[i % 2]!));

    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.slice(0, 10).map((a) => a.remaining)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    expect(answers.every((a) => a.limit === '10')).toBe(true);
    expect(answers[10]).toMatchObject({ status: 429, remaining: '0', body: { error: 'Too many requests' } });

    // Unix time in seconds, at the end of the window that began with the first request.
    for (const answer of answers) {
      expect(answer.reset).toMatch(/^\d{10}$/);
      const reset = Number(answer.reset);
      expect(reset).toBeGreaterThanOrEqual(Math.floor(startedSeconds + 60) - 1);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + 60));
    }
    // One window for both instances. Each answer's reset is its own clock plus Redis's PTTL,
    // rounded up to a second: a few milliseconds of jitter can cross a second's boundary.
    const resets = answers.map((a) => Number(a.reset));
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
  });

  it('let exactly 10 of 50 simultaneous requests through a limit of 10', async () => {
    const name = uniqueName('burst');
    const values = () => ({ limit: 10, windowMs: 60_000 });
    const urls = [
      await startApp(createRateLimiter({ name, redis: redisClient(), current: values, message: 'Too many requests' })),
      await startApp(createRateLimiter({ name, redis: redisClient(), current: values, message: 'Too many requests' })),
    ];
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => hit(urls[i % 2]!)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(40);
  });

  it('apply a lowered limit on the next request, against the hits already counted', async () => {
    const name = uniqueName('rebuild');
    let values: RateLimitValues = { limit: 10, windowMs: 60_000 };
    const limiter = createRateLimiter({
      name,
      redis: redisClient(),
      current: () => values,
      message: 'Too many requests',
    });
    const other = createRateLimiter({
      name,
      redis: redisClient(),
      current: () => values,
      message: 'Too many requests',
    });
    const [url, otherUrl] = [await startApp(limiter), await startApp(other)];
    for (let i = 0; i < 4; i++) expect((await hit(url)).status).toBe(200);

    values = { limit: 3, windowMs: 60_000 };
    limiter.rebuild();
    other.rebuild();
    expect(await hit(url)).toMatchObject({ status: 429, limit: '3', remaining: '0' });
    expect(await hit(otherUrl)).toMatchObject({ status: 429, limit: '3' });

    values = { limit: 20, windowMs: 60_000 };
    limiter.rebuild();
    // Refused requests count as hits too: 7 with this one, so 13 remain.
    expect(await hit(url)).toMatchObject({ status: 200, limit: '20', remaining: '13' });
  });
});

/** A signed-in person as an auth layer would have verified them; here a test header stands in for it. */
const identifyByTestHeader = (req: express.Request) => req.get('x-test-user') || undefined;

describe.runIf(withRedis)('with Redis, identified people', () => {
  it("count per user across instances, apart from their address's anonymous count", async () => {
    const name = uniqueName('identify');
    const values = () => ({ limit: 2, windowMs: 60_000 });
    const urls = [
      await startApp(
        createRateLimiter({
          name,
          redis: redisClient(),
          current: values,
          message: 'Too many requests',
          identify: identifyByTestHeader,
        }),
      ),
      await startApp(
        createRateLimiter({
          name,
          redis: redisClient(),
          current: values,
          message: 'Too many requests',
          identify: identifyByTestHeader,
        }),
      ),
    ];
    expect((await hit(urls[0]!)).status).toBe(200);
    expect((await hit(urls[1]!)).status).toBe(200);
    expect((await hit(urls[0]!)).status).toBe(429);
    const owner = { 'x-test-user': 'owner-1' };
    expect(await hit(urls[0]!, owner)).toMatchObject({ status: 200, remaining: '1' });
    expect(await hit(urls[1]!, owner)).toMatchObject({ status: 200, remaining: '0' });
    expect((await hit(urls[0]!, owner)).status).toBe(429);
    expect((await hit(urls[1]!, { 'x-test-user': 'someone-else' })).status).toBe(200);
  });
});

describe.runIf(withRedis)('with Redis clients of different key prefixes', () => {
  it('keeps their counts apart under the same limiter name (test isolation)', async () => {
    const name = uniqueName('keyprefix');
    const values = () => ({ limit: 1, windowMs: 60_000 });
    const prefixes = [`t1-${randomBytes(4).toString('hex')}:`, `t2-${randomBytes(4).toString('hex')}:`];
    const [one, two] = prefixes.map((keyPrefix) => {
      const client = createRedisClient(redisUrl, { keyPrefix });
      clients.push(client);
      return client;
    });
    const urls = [
      await startApp(createRateLimiter({ name, redis: one, current: values, message: 'Too many requests' })),
      await startApp(createRateLimiter({ name, redis: two, current: values, message: 'Too many requests' })),
    ];
    expect((await hit(urls[0]!)).status).toBe(200);
    expect((await hit(urls[1]!)).status).toBe(200);
    expect((await hit(urls[0]!)).status).toBe(429);
    const cleaner = createRedisClient(redisUrl);
    for (const prefix of prefixes) {
      const keys = await cleaner.keys(`${prefix}rl:${name}:*`);
      expect(keys).toHaveLength(1);
      await cleaner.del(...keys);
    }
    await cleaner.quit();
  });
});

describe('with Redis unreachable', () => {
  it('lets requests through uncounted and logs the store error, without an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const redis = createRedisClient('redis://127.0.0.1:1');
    redis.on('error', () => {}); // connection refused, again and again
    const errors: unknown[] = [];
    const url = await startApp(
      createRateLimiter({
        name: uniqueName('down'),
        redis,
        current: () => ({ limit: 1, windowMs: 60_000 }),
        message: 'Too many requests',
        logger: { error: (error: unknown) => errors.push(error), warn: () => {} },
      }),
    );
    try {
      expect((await hit(url)).status).toBe(200);
      expect((await hit(url)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(errors).toHaveLength(2);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      redis.disconnect();
    }
  });
});

describe('with the memory store', () => {
  it('counts per instance, answers 429 over the limit with the headers', async () => {
    const url = await startApp(
      createRateLimiter({ name: 'memory', current: () => ({ limit: 3, windowMs: 60_000 }), message: 'Slow down' }),
    );
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await hit(url));
    expect(answers.map((a) => [a.status, a.remaining])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    expect(answers[3]).toMatchObject({ limit: '3', body: { error: 'Slow down' } });
    const reset = Number(answers[0]!.reset);
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 55);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + 60));
  });

  it('lets exactly 10 of 50 simultaneous requests through a limit of 10', async () => {
    const url = await startApp(
      createRateLimiter({
        name: 'memory-burst',
        current: () => ({ limit: 10, windowMs: 60_000 }),
        message: 'Too many requests',
      }),
    );
    const answers = await Promise.all(Array.from({ length: 50 }, () => hit(url)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
  });

  it('applies a lowered limit on the next request, keeping the count of the window', async () => {
    let values: RateLimitValues = { limit: 10, windowMs: 60_000 };
    const limiter = createRateLimiter({ name: 'memory-rebuild', current: () => values, message: 'Too many requests' });
    const url = await startApp(limiter);
    for (let i = 0; i < 4; i++) expect((await hit(url)).status).toBe(200);
    values = { limit: 4, windowMs: 60_000 };
    limiter.rebuild();
    expect(await hit(url)).toMatchObject({ status: 429, limit: '4' });
    values = { limit: 10, windowMs: 60_000 };
    limiter.rebuild();
    expect(await hit(url)).toMatchObject({ status: 200, limit: '10', remaining: '4' });
  });

  it('lets everything through while disabled, and limits again once enabled', async () => {
    let values: RateLimitValues = { limit: 1, windowMs: 60_000, enabled: false };
    const limiter = createRateLimiter({ name: 'memory-disabled', current: () => values, message: 'Too many requests' });
    const url = await startApp(limiter);
    for (let i = 0; i < 5; i++) {
      const answer = await hit(url);
      expect(answer.status).toBe(200);
      expect(answer.limit).toBeNull();
    }
    values = { ...values, enabled: true };
    limiter.rebuild();
    expect((await hit(url)).status).toBe(200);
    expect((await hit(url)).status).toBe(429);
  });

  it('does not count skipped requests', async () => {
    const limiter = createRateLimiter({
      name: 'memory-skip',
      current: () => ({ limit: 1, windowMs: 60_000 }),
      message: 'Too many requests',
      skip: (req) => req.get('x-internal') === 'yes',
    });
    const url = await startApp(limiter);
    for (let i = 0; i < 3; i++) expect((await hit(url, { 'x-internal': 'yes' })).status).toBe(200);
    expect((await hit(url)).status).toBe(200);
    expect((await hit(url)).status).toBe(429);
  });

  it('counts an identified person by user id, apart from the anonymous requests of the same address', async () => {
    const url = await startApp(
      createRateLimiter({
        name: 'memory-identify',
        current: () => ({ limit: 1, windowMs: 60_000 }),
        message: 'Too many requests',
        identify: identifyByTestHeader,
      }),
    );
    expect((await hit(url)).status).toBe(200);
    expect((await hit(url)).status).toBe(429);
    expect((await hit(url, { 'x-test-user': 'owner-1' })).status).toBe(200);
    expect((await hit(url, { 'x-test-user': 'owner-1' })).status).toBe(429);
    expect((await hit(url, { 'x-test-user': 'someone-else' })).status).toBe(200);
  });

  /** A memory limiter of `limit` behind a trusted proxy; `from(ip)` sends a request as that client. */
  const behindProxy = async (name: string, limit: number) => {
    const url = await startApp(
      createRateLimiter({ name, current: () => ({ limit, windowMs: 60_000 }), message: 'Too many requests' }),
      true,
    );
    return (ip: string) => hit(url, { 'x-forwarded-for': ip });
  };

  it('counts each client IP apart, and an IPv6 client by its /56 network', async () => {
    const from = await behindProxy('memory-ip', 1);
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
    expect((await from('203.0.113.2')).status).toBe(200);
    expect((await from('2001:db8:0:1::1')).status).toBe(200);
    // Same /56 as the previous address: one subscriber rotating addresses gets no fresh limit.
    expect((await from('2001:db8:0:2::5')).status).toBe(429);
    expect((await from('2001:db8:1:100::1')).status).toBe(200);
  });

  it('keys a request without X-Forwarded-For by its socket address, and ignores the header when no proxy is trusted', async () => {
    const direct = await startApp(
      createRateLimiter({
        name: 'memory-direct',
        current: () => ({ limit: 2, windowMs: 60_000 }),
        message: 'Too many requests',
      }),
    );
    expect((await hit(direct)).status).toBe(200);
    // A forged header gains nothing: the socket's address counts.
    expect((await hit(direct, { 'x-forwarded-for': '203.0.113.77' })).status).toBe(200);
    expect((await hit(direct, { 'x-forwarded-for': '203.0.113.78' })).status).toBe(429);

    const proxied = await startApp(
      createRateLimiter({
        name: 'memory-proxied',
        current: () => ({ limit: 1, windowMs: 60_000 }),
        message: 'Too many requests',
      }),
      true,
    );
    expect((await hit(proxied)).status).toBe(200);
    expect((await hit(proxied, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    expect((await hit(proxied)).status).toBe(429);
  });

  it('counts an IPv4 client seen as IPv4-mapped IPv6 (a dual-stack listener) under its IPv4 address', async () => {
    const from = await behindProxy('memory-mapped', 2);
    expect((await from('::ffff:198.51.100.7')).status).toBe(200);
    expect((await from('198.51.100.7')).status).toBe(200);
    expect((await from('::FFFF:198.51.100.7')).status).toBe(429);
    expect((await from('::ffff:198.51.100.8')).status).toBe(200);
    // IPv6 keys come from a cache after the first time: the same /56 still shares one count.
    for (const ip of ['2001:db8:5:1::1', '2001:db8:5:1::1', '2001:db8:5:2::9']) await from(ip);
    expect((await from('2001:db8:5:3::1')).status).toBe(429);
  });
});
