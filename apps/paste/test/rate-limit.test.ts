import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { OWNER_SETTINGS_LIMIT } from '../src/access/guards.js';
import { OTHER_USER_ID, OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// The specification's defaults (100 per 60 minutes) for both limiters.
const DEFAULT_LIMITS = { webRateLimit: 100, webRateLimitWindow: 60, apiRateLimit: 100, apiRateLimitWindow: 60 };

// Redis when REDIS_URL is set (the PostgreSQL run), the memory store otherwise.
const store = testRateLimitStore();
let site: TestSite;
beforeAll(async () => {
  site = await startTestSite(DEFAULT_LIMITS, { redis: store.redis });
});
afterAll(async () => {
  await site?.close();
  await store.close();
});

const expectLimitHeaders = (headers: Record<string, string>, limit: number) => {
  expect(headers['x-ratelimit-limit']).toBe(String(limit));
  expect(headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  const reset = Number(headers['x-ratelimit-reset']);
  // Unix seconds, within the window.
  expect(reset).toBeGreaterThan(Date.now() / 1000 - 5);
  expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 60 * 60 + 5);
};

describe(`rate limits (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  // The scenarios share one app and one client IP, so the limiters' counts carry over from one
  // scenario to the next: each reads what its window already holds from the headers.
  let slug: string;

  it('lets 100 web requests through and answers the 101st with 429 and the headers, then obeys a lowered limit at once', async () => {
    slug = await site.createPaste({ content: 'limited' }); // an API request: the API limiter, not the web one
    const statuses: number[] = [];
    for (let i = 1; i <= 100; i += 1) {
      const response = await site.http.get(`/paste/${slug}`);
      statuses.push(response.status);
      expectLimitHeaders(response.headers, 100);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(100 - i));
    }
    expect(statuses.every((status) => status === 200)).toBe(true);

    const limited = await site.http.get(`/paste/${slug}`);
    expect(limited.status).toBe(429);
    expectLimitHeaders(limited.headers, 100);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // A page route answers a readable page; the API answers JSON.
    expect(limited.headers['content-type']).toMatch(/text\/html/);
    expect(limited.text).toContain('Too many requests');
    const verify = await site.http.post(`/paste/${slug}/verify`).send({ password: 'x' });
    expect(verify.status).toBe(429);
    expect(verify.body).toEqual({ error: expect.stringMatching(/too many requests/i) });
    const raw = await site.http.get(`/paste/${slug}/raw`);
    expect(raw.status).toBe(429);

    // The owner lowers the web limit: owner endpoints count against the API limiter, so the
    // owner is not locked out by the web limit.
    const owner = await site.session(OWNER_ID);
    const lowered = await site.http
      .post('/api/settings/security')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ webRateLimit: 5 });
    expect(lowered.status).toBe(200);
    const next = await site.http.get(`/paste/${slug}`);
    expect(next.status).toBe(429);
    expect(next.headers['x-ratelimit-limit']).toBe('5');

    // Raised again, the next request passes: no restart needed either way.
    await site.http
      .post('/api/settings/security')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ webRateLimit: 1000 });
    const raised = await site.http.get(`/paste/${slug}`);
    expect(raised.status).toBe(200);
    expect(raised.headers['x-ratelimit-limit']).toBe('1000');
  });

  it('after the owner lowers webRateLimit to 5 in a fresh window, exactly 5 more web requests pass', async () => {
    await site.settings.update({ webRateLimit: 1000 });
    // Count what the window already holds, then set the limit to that plus 5.
    const probe = await site.http.get(`/paste/${slug}`);
    const alreadyCounted = 1000 - Number(probe.headers['x-ratelimit-remaining']);
    const owner = await site.session(OWNER_ID);
    await site.http
      .post('/api/settings/security')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ webRateLimit: alreadyCounted + 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await site.http.get(`/paste/${slug}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('API requests share the API limit per IP and answer 429 as JSON; the signed-in owner counts apart', async () => {
    await site.settings.update({ apiRateLimit: 1000 });
    const probe = await site.http.post('/api/paste').send({ content: 'probe' });
    expectLimitHeaders(probe.headers, 1000);
    const alreadyCounted = 1000 - Number(probe.headers['x-ratelimit-remaining']);
    await site.settings.update({ apiRateLimit: alreadyCounted + 1 });
    expect((await site.http.post('/api/paste').send({ content: 'api 1' })).status).toBe(200);
    const limited = await site.http.post('/api/paste').send({ content: 'api 2' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.stringMatching(/too many requests/i) });
    expectLimitHeaders(limited.headers, alreadyCounted + 1);
    // Same address, but the owner's own count.
    const owner = await site.session(OWNER_ID);
    const stats = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(stats.status).toBe(200);
    expectLimitHeaders(stats.headers, alreadyCounted + 1);
  });

  it('a paste created from the site page (session CSRF token) counts against the web limit, not the API limit', async () => {
    await site.settings.update({ apiRateLimit: 1, webRateLimit: 100_000 });
    const page = await site.pageSession();
    const response = await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .set('X-CSRF-Token', page.csrf)
      .send({ content: 'from the page' });
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('100000');
  });

  it('a form post carrying the token in the _csrf field is a web request too', async () => {
    await site.settings.update({ apiRateLimit: 1, webRateLimit: 100_000 });
    const page = await site.pageSession();
    const response = await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .type('form')
      .send({ content: 'from a form', _csrf: page.csrf });
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('100000');
    const forged = await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .type('form')
      .send({ content: 'x', _csrf: 'forged' });
    expect(forged.headers['x-ratelimit-limit']).toBe('1');
  });

  it('static files, health probes and sign-in endpoints are not limited', async () => {
    await site.settings.update({ webRateLimit: 1, apiRateLimit: 1 });
    for (const path of ['/static/style.css', '/healthz', '/readyz', '/auth/status', '/']) {
      const response = await site.http.get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers['x-ratelimit-limit'], path).toBeUndefined();
    }
    // A first CSRF token counts only against the limit of new sessions (SESSION_START_LIMIT).
    const token = await site.http.get('/api/csrf-token');
    expect(token.status).toBe(200);
    expect(token.headers['x-ratelimit-limit']).toBe('100000');
  });
});

describe(`limits for the signed-in owner (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  // A site of its own, behind one proxy hop, so each scenario can speak from a chosen address.
  let proxied: TestSite;
  const proxiedStore = testRateLimitStore();
  beforeAll(async () => {
    proxied = await startTestSite(DEFAULT_LIMITS, { redis: proxiedStore.redis, env: { TRUST_PROXY: '1' } });
  });
  afterAll(async () => {
    await proxied?.close();
    await proxiedStore.close();
  });

  const OWNER_ADDRESS = '198.51.100.7';
  const asOwner = async <T extends { set(name: string, value: string): T }>(request: T) => {
    const owner = await proxied.session(OWNER_ID);
    return request.set('Cookie', owner.cookie).set('X-CSRF-Token', owner.csrf).set('X-Forwarded-For', OWNER_ADDRESS);
  };

  it("when an API client on the owner's network uses up the API limit, the owner still reads and saves the settings", async () => {
    await proxied.settings.update({ apiRateLimit: 3 });
    const anonymous = [];
    for (let i = 0; i < 4; i += 1) {
      anonymous.push(
        (
          await proxied.http
            .post('/api/paste')
            .set('X-Forwarded-For', OWNER_ADDRESS)
            .send({ content: `busy ${i}` })
        ).status,
      );
    }
    expect(anonymous).toEqual([200, 200, 200, 429]);
    expect((await proxied.http.get('/api/settings').set('X-Forwarded-For', OWNER_ADDRESS)).status).toBe(429);

    const read = await asOwner(proxied.http.get('/api/settings'));
    expect(read.status).toBe(200);
    expect(read.body.apiRateLimit).toBe(3);
    expectLimitHeaders(read.headers, OWNER_SETTINGS_LIMIT.limit);
    const saved = await asOwner(proxied.http.post('/api/settings/security').send({ apiRateLimit: 50 }));
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ success: true, message: 'Security settings updated successfully' });
    // The other owner endpoints count the owner apart from the address's anonymous traffic too.
    const stats = await asOwner(proxied.http.get('/api/stats'));
    expect(stats.status).toBe(200);
    expectLimitHeaders(stats.headers, 50);
    expect(stats.headers['x-ratelimit-remaining']).toBe('49');
    const admin = await asOwner(proxied.http.get('/admin'));
    expect(admin.status).toBe(200);
  });

  it("the owner's own limit answers the owner 429, but neither an anonymous client nor another user, and the settings stay reachable", async () => {
    await proxied.settings.update({ apiRateLimit: 1000 });
    const probe = await asOwner(proxied.http.get('/api/stats'));
    const ownerCounted = 1000 - Number(probe.headers['x-ratelimit-remaining']);
    await proxied.settings.update({ apiRateLimit: ownerCounted + 2 });
    const owner = [];
    for (let i = 0; i < 3; i += 1) owner.push((await asOwner(proxied.http.get('/api/stats'))).status);
    expect(owner).toEqual([200, 200, 429]);
    const keys = await asOwner(proxied.http.get('/api/settings/api-keys'));
    expect(keys.status).toBe(429);
    expect(keys.body).toEqual({ error: expect.stringMatching(/too many requests/i) });

    // Another address's anonymous client and another signed-in user are not counted with the owner.
    expect(
      (await proxied.http.post('/api/paste').set('X-Forwarded-For', '203.0.113.50').send({ content: 'elsewhere' }))
        .status,
    ).toBe(200);
    const other = await proxied.session(OTHER_USER_ID);
    const stranger = await proxied.http
      .get('/api/stats')
      .set('Cookie', other.cookie)
      .set('X-Forwarded-For', '203.0.113.51');
    expect(stranger.status).toBe(403);

    // The limit-changing settings are still open to the owner, who raises the limit.
    expect((await asOwner(proxied.http.get('/api/settings'))).status).toBe(200);
    expect((await asOwner(proxied.http.post('/api/settings/security').send({ apiRateLimit: 1000 }))).status).toBe(200);
    expect((await asOwner(proxied.http.get('/api/stats'))).status).toBe(200);
  });

  it("the owner's page views count apart from the address's anonymous views", async () => {
    await proxied.settings.update({ webRateLimit: 2 });
    const slug = await proxied.createPaste({ content: 'viewed' });
    const anonymous = [];
    for (let i = 0; i < 3; i += 1)
      anonymous.push((await proxied.http.get(`/paste/${slug}`).set('X-Forwarded-For', OWNER_ADDRESS)).status);
    expect(anonymous).toEqual([200, 200, 429]);
    const view = await asOwner(proxied.http.get(`/paste/${slug}`));
    expect(view.status).toBe(200);
    expect(view.headers['x-ratelimit-remaining']).toBe('1');
  });
});
