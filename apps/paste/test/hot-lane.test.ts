import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { RELAXED_LIMITS, startTestSite, type TestSite } from './helpers.js';

// Creating and reading pastes without a session cookie are served by the hot lane, straight after
// the security headers and the request log (the `hotPath` stage, docs/conventions.md); with a cookie, by the
// same declarations further down the stack. Both must answer alike, headers included.
describe(`the hot routes answer alike with and without a session (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let slug: string;
  let session: { cookie: string; csrf: string };
  beforeAll(async () => {
    site = await startTestSite();
    slug = await site.createPaste({ content: 'const hotLaneMarker = 1;', language: 'plaintext' });
    session = await site.pageSession();
  });
  afterAll(async () => {
    await site?.close();
  });

  const securityHeaders = [
    'content-security-policy',
    'x-content-type-options',
    'x-frame-options',
    'referrer-policy',
    'cross-origin-opener-policy',
  ];

  it.each([
    { name: 'the paste page', path: () => `/paste/${slug}`, type: /text\/html/ },
    { name: 'the raw text', path: () => `/paste/${slug}/raw`, type: /text\/plain/ },
  ])(
    '$name: the same status, type, security headers and no-store, with or without a cookie, each counting a view',
    async ({ path, type }) => {
      const before = (await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug])).rows[0]
        .views_count;
      const anonymous = await site.http.get(path()).expect(200);
      const withSession = await site.http.get(path()).set('Cookie', session.cookie).expect(200);
      for (const answer of [anonymous, withSession]) {
        expect(answer.headers['content-type']).toMatch(type);
        expect(answer.headers['cache-control']).toBe('no-store');
        for (const header of securityHeaders) expect(answer.headers[header], header).toBe(anonymous.headers[header]);
        expect(answer.text).toContain('hotLaneMarker');
      }
      expect(anonymous.headers['content-security-policy']).toContain("script-src 'self'");
      // No session is started for a reader without one.
      expect(anonymous.headers['set-cookie']).toBeUndefined();
      const after = (await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug])).rows[0]
        .views_count;
      expect(after - before).toBe(2);
    },
  );

  it('HEAD answers without counting a view, with or without a cookie', async () => {
    const before = (await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug])).rows[0]
      .views_count;
    await site.http.head(`/paste/${slug}`).expect(200);
    await site.http.head(`/paste/${slug}/raw`).set('Cookie', session.cookie).expect(200);
    await site.http.head('/paste/no-such-paste').expect(404);
    const after = (await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug])).rows[0]
      .views_count;
    expect(after).toBe(before);
  });

  it("POST /api/paste: an API create without a cookie, the site's form with one; bad input is the same 400", async () => {
    const api = await site.http.post('/api/paste').send({ content: 'from a program' }).expect(200);
    expect(api.body).toMatchObject({ success: true, slug: expect.any(String), deleteToken: expect.any(String) });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    const form = await site.http
      .post('/api/paste')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ content: 'from the page' })
      .expect(200);
    expect(form.body.success).toBe(true);
    const emptyApi = await site.http.post('/api/paste').send({ content: '   ' }).expect(400);
    const emptyForm = await site.http
      .post('/api/paste')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ content: '   ' })
      .expect(400);
    expect(emptyApi.body).toEqual(emptyForm.body);
    await site.http.post('/api/paste').set('Content-Type', 'application/json').send('{"content": ').expect(400);
  });
});

describe(`the hot lane under the web rate limit (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite({ ...RELAXED_LIMITS, webRateLimit: 2 });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('counts hot-lane reads like any other, and its 429 carries the security headers', async () => {
    const slug = await site.createPaste({ content: 'limited' });
    await site.http.get(`/paste/${slug}`).expect(200);
    await site.http.get(`/paste/${slug}/raw`).expect(200);
    const refused = await site.http.get(`/paste/${slug}`).expect(429);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(refused.headers['content-security-policy']).toContain("script-src 'self'");
  });
});
