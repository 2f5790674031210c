import { describe, expect, it } from 'vitest';
import { signInAs } from '../src/testing.js';
import { get, setCookie, setUpAuthTests } from './test-app.js';

const t = setUpAuthTests();

/** Starts a sign-in and returns the anonymous session cookie and the provider's redirect back to the app. */
async function startSignIn(userId: string): Promise<{ cookie: string; callback: URL }> {
  const start = await get(`${t.app.baseUrl}/auth/idp?login_hint=${encodeURIComponent(userId)}`);
  expect(start.status).toBe(302);
  const cookie = setCookie(start, 'test.sid')?.pair;
  expect(cookie).toBeDefined();
  const authorize = new URL(start.headers.get('location')!);
  expect(authorize.origin).toBe(t.idp.url);
  expect(authorize.searchParams.get('state')).toBeTruthy();
  const atProvider = await get(authorize.href);
  expect(atProvider.status).toBe(302);
  return { cookie: cookie!, callback: new URL(atProvider.headers.get('location')!) };
}

describe('sign-in through the development provider', () => {
  it('signs a user in through the whole redirect chain, with a new session id and safe cookie flags', async () => {
    const before = await get(`${t.app.baseUrl}/auth/status`);
    expect(await before.json()).toEqual({ authenticated: false, user: null, session: {} });

    const { cookie: anonymous, callback } = await startSignIn('alice');
    expect(callback.origin + callback.pathname).toBe(`${t.app.baseUrl}/auth/idp/callback`);
    const done = await get(callback.href, anonymous);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/');

    const issued = setCookie(done, 'test.sid');
    expect(issued).toBeDefined();
    expect(issued!.pair).not.toBe(anonymous);
    expect(issued!.line).toMatch(/; HttpOnly/i);
    expect(issued!.line).toMatch(/; SameSite=Lax/i);
    expect(issued!.line).not.toMatch(/; Secure/i);
    expect(issued!.line).toMatch(/; Expires=/i);

    const after = await get(`${t.app.baseUrl}/auth/status`, issued!.pair);
    expect(await after.json()).toEqual({
      authenticated: true,
      user: { id: 'alice', username: 'alice' },
      session: { passport: { user: { id: 'alice', username: 'alice' } } },
    });
    // The anonymous session that carried the state is gone: its id is not a key to the new one.
    const old = await get(`${t.app.baseUrl}/auth/status`, anonymous);
    expect((await old.json()).authenticated).toBe(false);
    expect(t.app.signIns).toContain('alice');
  });

  it('signInAs returns a cookie of a signed-in session', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'bob');
    const status = await get(`${t.app.baseUrl}/auth/status`, cookie);
    expect((await status.json()).user).toEqual({ id: 'bob', username: 'bob' });
  });

  it('a person without login_hint gets the provider form, and submitting it signs them in', async () => {
    const start = await get(`${t.app.baseUrl}/auth/idp`);
    const anonymous = setCookie(start, 'test.sid')!.pair;
    const page = await get(start.headers.get('location')!);
    expect(page.status).toBe(200);
    const html = await page.text();
    const fields = new URLSearchParams();
    for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields.set(
        match[1]!,
        match[2]!.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))),
      );
    }
    expect(fields.get('state')).toBeTruthy();
    fields.set('login_hint', 'dora');
    const submitted = await get(`${t.idp.url}/authorize?${fields}`);
    const done = await get(submitted.headers.get('location')!, anonymous);
    expect(done.headers.get('location')).toBe('/');
    const status = await get(`${t.app.baseUrl}/auth/status`, setCookie(done, 'test.sid')!.pair);
    expect((await status.json()).user).toEqual({ id: 'dora', username: 'dora' });
  });

  it('keeps the session in the "session" table until it expires', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'carol');
    const { rows } = await t.database.pool.query(`SELECT sess, expire FROM "session" WHERE sess::text LIKE '%carol%'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].sess.passport.user).toEqual({ id: 'carol', username: 'carol' });
    const ttlMs = new Date(rows[0].expire).getTime() - Date.now();
    expect(ttlMs).toBeGreaterThan(59 * 60_000);
    expect(ttlMs).toBeLessThanOrEqual(60 * 60_000 + 1000);
    expect(cookie).toMatch(/^test\.sid=/);
  });
});
