import { describe, expect, it } from 'vitest';
import { signInAs } from '../src/testing.js';
import { get, setCookie, setUpAuthTests } from './test-app.js';

const t = setUpAuthTests({ withSecureApp: true });

describe('session cookie', () => {
  it('is HttpOnly and SameSite=Lax, without Secure when not configured', async () => {
    const response = await get(`${t.app.baseUrl}/api/csrf-token`);
    const cookie = setCookie(response, 'test.sid')!;
    expect(cookie.line).toMatch(/; HttpOnly/i);
    expect(cookie.line).toMatch(/; SameSite=Lax/i);
    expect(cookie.line).toMatch(/; Path=\//i);
    expect(cookie.line).not.toMatch(/; Secure/i);
  });

  it('is Secure when configured, on a request that arrived over https (through a trusted proxy)', async () => {
    const response = await get(`${t.secureApp.baseUrl}/api/csrf-token`, undefined, { 'X-Forwarded-Proto': 'https' });
    const cookie = setCookie(response, 'test.sid')!;
    expect(cookie.line).toMatch(/; Secure/i);
    expect(cookie.line).toMatch(/; HttpOnly/i);
    expect(cookie.line).toMatch(/; SameSite=Lax/i);
  });

  it('is never sent over plain http when Secure is configured', async () => {
    const response = await get(`${t.secureApp.baseUrl}/api/csrf-token`);
    expect(setCookie(response, 'test.sid')).toBeUndefined();
  });

  it('expires after the configured session duration', async () => {
    const response = await get(`${t.app.baseUrl}/api/csrf-token`);
    const expires = /Expires=([^;]+)/i.exec(setCookie(response, 'test.sid')!.line)?.[1];
    const lifetimeMs = Date.parse(expires!) - Date.now();
    expect(lifetimeMs).toBeGreaterThan(59 * 60_000);
    expect(lifetimeMs).toBeLessThanOrEqual(60 * 60_000 + 1000);
  });

  it('is not set for a visitor whose session holds nothing', async () => {
    const response = await get(`${t.app.baseUrl}/auth/status`);
    expect(response.headers.getSetCookie()).toEqual([]);
  });
});

describe('logout', () => {
  it('ends the session, clears the cookie and redirects to the homepage', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'frank');
    const sid = decodeURIComponent(cookie.split('=')[1]!).slice(2).split('.')[0];
    const { rowCount: before } = await t.database.pool.query('SELECT 1 FROM "session" WHERE sid = $1', [sid]);
    expect(before).toBe(1);

    const response = await get(`${t.app.baseUrl}/auth/logout`, cookie);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/');
    const cleared = setCookie(response, 'test.sid')!;
    expect(cleared.line).toMatch(/Expires=Thu, 01 Jan 1970/i);

    const status = await get(`${t.app.baseUrl}/auth/status`, cookie);
    expect(await status.json()).toEqual({ authenticated: false, user: null, session: {} });
    const { rowCount: after } = await t.database.pool.query('SELECT 1 FROM "session" WHERE sid = $1', [sid]);
    expect(after).toBe(0);
    expect(t.app.signOuts).toContain('frank');
  });

  it('without a session still redirects to the homepage', async () => {
    const response = await get(`${t.app.baseUrl}/auth/logout`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/');
  });
});

describe('guards', () => {
  it('an owner-only route answers 401 to nobody, 403 to a signed-in stranger and 200 to the owner', async () => {
    const nobody = await get(`${t.app.baseUrl}/api/owner-only`);
    expect(nobody.status).toBe(401);
    expect(await nobody.json()).toEqual({ error: 'Unauthorized' });

    const stranger = await get(`${t.app.baseUrl}/api/owner-only`, await signInAs(t.app.baseUrl, 'stranger'));
    expect(stranger.status).toBe(403);
    expect(await stranger.json()).toEqual({ error: 'Forbidden' });

    const owner = await get(`${t.app.baseUrl}/api/owner-only`, await signInAs(t.app.baseUrl, 'owner-1'));
    expect(owner.status).toBe(200);
    expect(await owner.json()).toEqual({ ok: true });
  });

  it('requireUser answers 401, its own 403 message, or lets the user through', async () => {
    expect((await get(`${t.app.baseUrl}/api/members-only`)).status).toBe(401);
    const outsider = await get(`${t.app.baseUrl}/api/members-only`, await signInAs(t.app.baseUrl, 'visitor-1'));
    expect(outsider.status).toBe(403);
    expect(await outsider.json()).toEqual({ error: 'Members only' });
    const member = await get(`${t.app.baseUrl}/api/members-only`, await signInAs(t.app.baseUrl, 'member-1'));
    expect(member.status).toBe(200);
  });

  it('a session cookie that does not verify is treated as nobody', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'owner-1');
    const forged = cookie.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    expect((await get(`${t.app.baseUrl}/api/owner-only`, forged)).status).toBe(401);
  });
});
