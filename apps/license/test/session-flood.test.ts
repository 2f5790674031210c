import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor, walkSignIn } from '@app/auth/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { buildTestApp, type TestApp } from './helpers.js';

// Redis when REDIS_URL is set (the PostgreSQL run), the memory store otherwise.
const store = testRateLimitStore();
afterAll(async () => {
  await store.close();
});

/** `count` GETs of `path` at full speed (`concurrency` at a time) from `address`, without cookies. */
async function flood(baseUrl: string, path: string, count: number, address: string) {
  const statuses: number[] = [];
  let last: Response | undefined;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const response = await fetch(`${baseUrl}${path}`, {
        redirect: 'manual',
        headers: { 'X-Forwarded-For': address },
      });
      statuses.push(response.status);
      if (response.status === 429) last = response;
      else await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  return { statuses, tooMany: last };
}

const countOf = (statuses: number[], status: number) => statuses.filter((value) => value === status).length;

describe(`anonymous sessions (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  let t: TestApp;
  const sessionRows = async () =>
    Number((await t.database.pool.query<{ n: string }>('SELECT count(*) AS n FROM license_session')).rows[0]!.n);

  beforeAll(async () => {
    // One proxy hop, so each flood comes from an address of its own.
    t = await buildTestApp({ env: { SESSION_START_LIMIT: '30', TRUST_PROXY: '1' }, redis: store.redis });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the probe: 2,000 GET /auth/idp at full speed from one address store 30 sessions, then 429', async () => {
    const before = await sessionRows();
    const { statuses, tooMany } = await flood(t.baseUrl, '/auth/idp', 2000, '203.0.113.10');
    expect(countOf(statuses, 302)).toBe(30);
    expect(countOf(statuses, 429)).toBe(1970);
    expect(await tooMany!.json()).toEqual({ success: false, error: 'Too many requests, please try again later' });
    expect(tooMany!.headers.get('x-ratelimit-limit')).toBe('30');
    expect(Number(tooMany!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await sessionRows()) - before).toBeLessThanOrEqual(30);
  });

  it('2,000 GET /api/csrf-token without a cookie store 30 sessions (the same budget), then 429', async () => {
    const before = await sessionRows();
    const { statuses } = await flood(t.baseUrl, '/api/csrf-token', 2000, '203.0.113.11');
    expect(countOf(statuses, 200)).toBe(30);
    expect(countOf(statuses, 429)).toBe(1970);
    expect((await sessionRows()) - before).toBeLessThanOrEqual(30);
    // The address that spent its budget on tokens cannot start signing in either.
    const signIn = await fetch(`${t.baseUrl}/auth/idp`, {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': '203.0.113.11' },
    });
    expect(signIn.status).toBe(429);
  });

  it('pages and the token of a session that holds one store nothing new and count nothing', async () => {
    const first = await fetch(`${t.baseUrl}/api/csrf-token`, { headers: { 'X-Forwarded-For': '203.0.113.12' } });
    const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
    const { csrfToken } = (await first.json()) as { csrfToken: string };
    const before = await sessionRows();
    for (let i = 0; i < 40; i++) {
      const again = await fetch(`${t.baseUrl}/api/csrf-token`, {
        headers: { Cookie: cookie, 'X-Forwarded-For': '203.0.113.12' },
      });
      expect(again.status).toBe(200);
      expect(((await again.json()) as { csrfToken: string }).csrfToken).toBe(csrfToken);
    }
    for (const path of ['/', '/auth/status', '/docs', '/healthz', '/nothing-here']) {
      const page = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });
      await page.arrayBuffer();
      expect(page.headers.getSetCookie()).toEqual([]);
    }
    expect(await sessionRows()).toBe(before);
  });

  it('a real sign-in through the development provider still works from another address', async () => {
    const { endedAt, cookie } = await walkSignIn(t.baseUrl, 'session-flood-admin');
    expect(endedAt.searchParams.has('error')).toBe(false);
    const status = await fetch(`${t.baseUrl}/auth/status`, { headers: { Cookie: cookie } });
    expect(await status.json()).toMatchObject({ authenticated: true, user: { id: 'session-flood-admin' } });
    // A signed-in person's token is never counted against the address.
    expect(await csrfTokenFor(t.baseUrl, cookie)).toMatch(/^[0-9a-f]{64}$/);
  });
});
