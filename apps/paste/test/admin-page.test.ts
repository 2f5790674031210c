import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OTHER_USER_ID, OWNER_ID, startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});

describe(`owner dashboard /admin (${testDatabaseBackend()})`, () => {
  it('sends a visitor who is not signed in to sign in', async () => {
    const response = await site.http.get('/admin');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/auth/idp?returnTo=%2Fadmin');
    // The page to come back to travels in the link: a stranger's visit stores no session.
    expect(response.headers['set-cookie']).toBeUndefined();
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
    for (const endpoint of [
      '/api/settings/general',
      '/api/settings/security',
      '/api/settings/advanced',
      '/api/upload/logo',
      '/api/upload/favicon',
      '/api/settings/api-keys',
      '/api/admin/clear-pastes',
    ]) {
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

describe(`the Pastes figure and the list agree (${testDatabaseBackend()})`, () => {
  it('marks used-up and expired pastes in the list; the figure says it leaves expired ones out', async () => {
    await site.reset();
    await site.createPaste({ content: 'live' });
    const usedUp = await site.createPaste({ content: 'once', maxViews: 1 });
    await site.http.get(`/paste/${usedUp}`).expect(200);
    const expired = await site.createPaste({ content: 'later', expiresIn: 3600 });
    await site.database.pool.query(`UPDATE pastes SET expires_at = now() - interval '1 minute' WHERE slug = $1`, [
      expired,
    ]);

    const owner = await site.session(OWNER_ID);
    const response = await site.http.get('/admin').set('Cookie', owner.cookie);
    expect(response.status).toBe(200);
    // Three rows, two marked; the figure counts the two that are not expired, and says so.
    expect(response.text).toMatch(
      /<span class="stat-value">2<\/span><span class="stat-label">Pastes<\/span><span class="stat-note">expired ones not counted<\/span>/,
    );
    const rows = response.text.split('<tr>').slice(2);
    expect(rows).toHaveLength(3);
    const rowOf = (slug: string) => rows.find((row) => row.includes(`href="/paste/${slug}"`))!;
    expect(rowOf(usedUp)).toMatch(/<span class="badge badge-warning" title="[^"]*">Used up<\/span>/);
    expect(rowOf(expired)).toMatch(/<span class="badge badge-warning" title="[^"]*">Expired<\/span>/);
    expect(rows.filter((row) => row.includes('class="badge'))).toHaveLength(2);
  });

  it('a search offers Clear, back to the whole list; the whole list offers none', async () => {
    const owner = await site.session(OWNER_ID);
    const searched = await site.http.get('/admin?q=abc').set('Cookie', owner.cookie);
    expect(searched.text).toContain('<a class="button button-ghost" href="/admin#pastes">Clear</a>');
    const whole = await site.http.get('/admin').set('Cookie', owner.cookie);
    expect(whole.text).not.toContain('>Clear</a>');
  });
});
