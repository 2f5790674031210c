import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// The specification's defaults (100 per 60 minutes) for both limiters.
const DEFAULT_LIMITS = { webRateLimit: 100, webRateLimitWindow: 60, apiRateLimit: 100, apiRateLimitWindow: 60 };

let site: TestSite;
beforeAll(async () => { site = await startTestSite(DEFAULT_LIMITS); });
afterAll(async () => { await site?.close(); });

const expectLimitHeaders = (headers: Record<string, string>, limit: number) => {
  expect(headers['x-ratelimit-limit']).toBe(String(limit));
  expect(headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  const reset = Number(headers['x-ratelimit-reset']);
  // Unix seconds, within the window.
  expect(reset).toBeGreaterThan(Date.now() / 1000 - 5);
  expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 60 * 60 + 5);
};

describe(`rate limits (${testDatabaseBackend()})`, () => {
  // The scenarios share one app and one client IP, so the limiters' counts carry over from one
  // scenario to the next: each reads what its window already holds from the headers.
  let slug: string;

  it('lets 100 web requests through and answers the 101st with 429 and the headers, then obeys a lowered limit at once', async () => {
    slug = await site.createPaste({ content: 'limited' }); // an API request: the API limiter, not the web one
    const statuses: number[] = [];
    for (let i = 1; i <= 100; i += 1) {
      const response = await site.http.get(`/paste/${slug}`);
      statuses.push(response.status);
      expectLimitHeaders(response.headers as Record<string, string>, 100);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(100 - i));
    }
    expect(statuses.every((status) => status === 200)).toBe(true);

    const limited = await site.http.get(`/paste/${slug}`);
    expect(limited.status).toBe(429);
    expectLimitHeaders(limited.headers as Record<string, string>, 100);
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
    const lowered = await site.http.post('/api/settings/security').set('Cookie', owner.cookie).set('X-CSRF-Token', owner.csrf)
      .send({ webRateLimit: 5 });
    expect(lowered.status).toBe(200);
    const next = await site.http.get(`/paste/${slug}`);
    expect(next.status).toBe(429);
    expect(next.headers['x-ratelimit-limit']).toBe('5');

    // Raised again, the next request passes: no restart needed either way.
    await site.http.post('/api/settings/security').set('Cookie', owner.cookie).set('X-CSRF-Token', owner.csrf)
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
    await site.http.post('/api/settings/security').set('Cookie', owner.cookie).set('X-CSRF-Token', owner.csrf)
      .send({ webRateLimit: alreadyCounted + 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await site.http.get(`/paste/${slug}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('API requests and owner endpoints share the API limit, and answer 429 as JSON', async () => {
    await site.settings.update({ apiRateLimit: 1000 });
    const owner = await site.session(OWNER_ID);
    const probe = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expectLimitHeaders(probe.headers as Record<string, string>, 1000);
    const alreadyCounted = 1000 - Number(probe.headers['x-ratelimit-remaining']);
    await site.settings.update({ apiRateLimit: alreadyCounted + 2 });
    expect((await site.http.post('/api/paste').send({ content: 'api 1' })).status).toBe(200);
    expect((await site.http.get('/api/settings').set('Cookie', owner.cookie)).status).toBe(200);
    const limited = await site.http.post('/api/paste').send({ content: 'api 3' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.stringMatching(/too many requests/i) });
    expectLimitHeaders(limited.headers as Record<string, string>, alreadyCounted + 2);
    const ownerLimited = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(ownerLimited.status).toBe(429);
  });

  it('a paste created from the site page (session CSRF token) counts against the web limit, not the API limit', async () => {
    await site.settings.update({ apiRateLimit: 1, webRateLimit: 100_000 });
    const page = await site.pageSession();
    const response = await site.http.post('/api/paste').set('Cookie', page.cookie).set('X-CSRF-Token', page.csrf).send({ content: 'from the page' });
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('100000');
  });

  it('a form post carrying the token in the _csrf field is a web request too', async () => {
    await site.settings.update({ apiRateLimit: 1, webRateLimit: 100_000 });
    const page = await site.pageSession();
    const response = await site.http.post('/api/paste').set('Cookie', page.cookie).type('form').send({ content: 'from a form', _csrf: page.csrf });
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('100000');
    const forged = await site.http.post('/api/paste').set('Cookie', page.cookie).type('form').send({ content: 'x', _csrf: 'forged' });
    expect(forged.headers['x-ratelimit-limit']).toBe('1');
  });

  it('static files, health probes and sign-in endpoints are not limited', async () => {
    await site.settings.update({ webRateLimit: 1, apiRateLimit: 1 });
    for (const path of ['/static/style.css', '/healthz', '/readyz', '/auth/status', '/api/csrf-token', '/']) {
      const response = await site.http.get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers['x-ratelimit-limit'], path).toBeUndefined();
    }
  });
});
