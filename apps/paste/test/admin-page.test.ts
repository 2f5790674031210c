import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OTHER_USER_ID, OWNER_ID, startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => { site = await startTestSite(); });
afterAll(async () => { await site?.close(); });

describe(`owner dashboard /admin (${testDatabaseBackend()})`, () => {
  it('sends a visitor who is not signed in to sign in', async () => {
    const response = await site.http.get('/admin');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/auth/idp');
  });

  it('answers another user 403 with a readable page', async () => {
    const other = await site.session(OTHER_USER_ID);
    const response = await site.http.get('/admin').set('Cookie', other.cookie);
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toMatch(/text\/html/);
  });

  it('shows the owner the statistics and a form for every owner action, with hostile values escaped', async () => {
    await site.settings.update({ siteName: '"><script>alert(1)</script>' });
    await site.createPaste({ content: 'x' });
    const owner = await site.session(OWNER_ID);
    const response = await site.http.get('/admin').set('Cookie', owner.cookie);
    expect(response.status).toBe(200);
    for (const endpoint of ['/api/settings/general', '/api/settings/security', '/api/settings/advanced', '/api/upload/logo',
      '/api/upload/favicon', '/api/settings/api-keys', '/api/admin/clear-pastes']) {
      expect(response.text).toContain(`data-endpoint="${endpoint}"`);
    }
    expect(response.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(response.text).not.toContain('<script>alert(1)');
    expect(response.text).toMatch(/<span class="stat-value">1<\/span><span class="stat-label">Pastes<\/span>/);
  });
});

describe('home page notices', () => {
  test.each([
    { error: 'auth_failed', text: 'Sign-in failed' },
    { error: 'rate_limited', text: 'rate limited' },
    { error: 'no_user', text: 'no user' },
  ])('after a failed sign-in (?error=$error) it says so', async ({ error, text }) => {
    const response = await site.http.get(`/?error=${error}`);
    expect(response.text).toContain(text);
  });

  it.each(['<script>', 'constructor', 'toString', '__proto__'])('ignores an unknown error code (%s)', async (code) => {
    const response = await site.http.get(`/?error=${encodeURIComponent(code)}`);
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('role="alert">');
    expect(response.text).not.toContain('<script>');
    expect(response.text).not.toContain('native code');
  });
});
