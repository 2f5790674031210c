import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkSignIn } from '@app/auth/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// The outside probe wrote 16,534 session rows in 10 s through GET /auth/idp and
// GET /api/csrf-token. The same requests from one address now store at most SESSION_START_LIMIT.
// Redis when REDIS_URL is set (the PostgreSQL run), the memory store otherwise.
const store = testRateLimitStore();
afterAll(async () => {
  await store.close();
});

/** `count` GETs of `path` at full speed (20 at a time) from `address`, without cookies. */
async function flood(baseUrl: string, path: string, count: number, address: string) {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const response = await fetch(`${baseUrl}${path}`, {
        redirect: 'manual',
        headers: { 'X-Forwarded-For': address },
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  return statuses;
}

const countOf = (statuses: number[], status: number) => statuses.filter((value) => value === status).length;

describe(`anonymous sessions of the paste service (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  let site: TestSite;
  const sessionRows = async () =>
    Number((await site.database.pool.query<{ n: string }>('SELECT count(*) AS n FROM paste_session')).rows[0]!.n);

  beforeAll(async () => {
    // One proxy hop, so each flood comes from an address of its own.
    site = await startTestSite(undefined, { env: { SESSION_START_LIMIT: '30', TRUST_PROXY: '1' }, redis: store.redis });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('the probe: 2,000 GET /auth/idp at full speed from one address store at most 30 sessions, then 429', async () => {
    const before = await sessionRows();
    const statuses = await flood(site.baseUrl, '/auth/idp', 2000, '203.0.113.20');
    expect(countOf(statuses, 302)).toBe(30);
    expect(countOf(statuses, 429)).toBe(1970);
    expect((await sessionRows()) - before).toBeLessThanOrEqual(30);
  });

  it('2,000 GET /api/csrf-token without a cookie share the same budget of 30, then 429', async () => {
    const before = await sessionRows();
    const statuses = await flood(site.baseUrl, '/api/csrf-token', 2000, '203.0.113.21');
    expect(countOf(statuses, 200)).toBe(30);
    expect(countOf(statuses, 429)).toBe(1970);
    expect((await sessionRows()) - before).toBeLessThanOrEqual(30);
  });

  it('pages seen without a cookie store no session', async () => {
    const before = await sessionRows();
    for (const path of ['/', '/auth/status', '/healthz', '/nothing-here']) {
      const page = await fetch(`${site.baseUrl}${path}`, { redirect: 'manual' });
      await page.arrayBuffer();
      expect(page.headers.getSetCookie()).toEqual([]);
    }
    expect(await sessionRows()).toBe(before);
  });

  it('the owner still signs in from another address', async () => {
    const { endedAt, cookie } = await walkSignIn(site.baseUrl, OWNER_ID);
    expect(endedAt.searchParams.has('error')).toBe(false);
    const status = await fetch(`${site.baseUrl}/auth/status`, { headers: { Cookie: cookie } });
    expect(await status.json()).toMatchObject({ authenticated: true });
  });
});
