import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type TestApp } from './helpers.js';

describe(`unknown paths (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['get', 'post', 'put', 'patch', 'delete'] as const)(
    '%s of an unknown /api path answers 404 { success: false, error: "Not found" }',
    async (method) => {
      for (const path of ['/api/nope', '/api/license/nope/deeper', '/api']) {
        const res = await t.http[method](path);
        expect(res.status).toBe(404);
        expect(res.headers['content-type']).toMatch(/application\/json/);
        expect(res.body).toEqual({ success: false, error: 'Not found' });
      }
    },
  );

  it.each(['get', 'post', 'put', 'delete'] as const)(
    '%s of an unknown page answers 404 with the dashboard\'s HTML page, never "Cannot ..."',
    async (method) => {
      const res = await t.http[method]('/nope').set('Accept', 'application/json');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<h1>Page not found</h1>');
      expect(res.text).toContain('href="/dashboard-assets/dashboard.css"');
      expect(res.text).toContain('href="/">Go to the dashboard</a>');
      expect(res.text).not.toMatch(/Cannot (GET|POST|PUT|DELETE)/);
    },
  );

  it('HEAD of an unknown path answers 404 with headers only', async () => {
    const page = await t.http.head('/nope');
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const api = await t.http.head('/api/nope');
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toMatch(/application\/json/);
  });

  it('a signed-in admin sees the page with their name in the top bar', async () => {
    const res = await t.http.get('/nope/deeper').set('Cookie', (await t.admin()).cookie);
    expect(res.status).toBe(404);
    expect(res.text).toContain('title="Signed in">admin</span>');
  });
});
