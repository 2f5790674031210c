import { describe, expect, it } from 'vitest';
import { anonymousCsrfSession, csrfTokenFor, signInAs } from '../src/testing.js';
import { get, setUpAuthTests } from './test-app.js';

const t = setUpAuthTests();

function post(
  path: string,
  options: { cookie?: string; headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.Cookie = options.cookie;
  let body: string | URLSearchParams | undefined;
  if (options.form) body = new URLSearchParams(options.form);
  else {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json ?? {});
  }
  return fetch(`${t.app.baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers, body });
}

describe('CSRF protection of session-authenticated changes', () => {
  it('a POST without a token answers 403 Invalid CSRF token', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'grace');
    const response = await post('/api/things', { cookie });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'Invalid CSRF token' });
  });

  it('a POST with a wrong token answers 403 Invalid CSRF token', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'grace');
    await csrfTokenFor(t.app.baseUrl, cookie);
    const response = await post('/api/things', { cookie, headers: { 'X-CSRF-Token': 'not-the-token' } });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'Invalid CSRF token' });
  });

  it('a POST with the session token in X-CSRF-Token passes', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'grace');
    const token = await csrfTokenFor(t.app.baseUrl, cookie);
    const response = await post('/api/things', { cookie, headers: { 'X-CSRF-Token': token } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, user: 'grace' });
  });

  it('an HTML form may send the token in the _csrf field', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'grace');
    const token = await csrfTokenFor(t.app.baseUrl, cookie);
    const response = await post('/api/things', { cookie, form: { _csrf: token } });
    expect(response.status).toBe(200);
  });

  it("another session's token does not pass", async () => {
    const cookie = await signInAs(t.app.baseUrl, 'grace');
    const otherToken = await csrfTokenFor(t.app.baseUrl, await signInAs(t.app.baseUrl, 'heidi'));
    const response = await post('/api/things', { cookie, headers: { 'X-CSRF-Token': otherToken } });
    expect(response.status).toBe(403);
  });

  it('a multipart request is checked by its header (the body is parsed later, by the route)', async () => {
    const cookie = await signInAs(t.app.baseUrl, 'grace');
    const token = await csrfTokenFor(t.app.baseUrl, cookie);
    const form = new FormData();
    form.set('_csrf', token);
    const withoutHeader = await fetch(`${t.app.baseUrl}/api/things`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: form,
    });
    expect(withoutHeader.status).toBe(403);
    const withHeader = await fetch(`${t.app.baseUrl}/api/things`, {
      method: 'POST',
      headers: { Cookie: cookie, 'X-CSRF-Token': token },
      body: form,
    });
    expect(withHeader.status).toBe(200);
  });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: 'a bearer token', headers: { Authorization: 'Bearer some-token' } },
    { name: 'an API key', headers: { 'X-API-Key': 'some-key' } },
  ])('a request carrying $name needs no CSRF token', async ({ headers }) => {
    const response = await post('/api/public', { headers });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ web: false });
  });

  it('Basic authorization is not a reason to skip the check', async () => {
    const response = await post('/api/public', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(response.status).toBe(403);
  });
});

describe('GET /api/csrf-token', () => {
  it('gives an anonymous visitor a stable token tied to a new session, which marks its requests as web requests', async () => {
    const { cookie, csrfToken } = await anonymousCsrfSession(t.app.baseUrl);
    expect(cookie).toMatch(/^test\.sid=/);
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(await csrfTokenFor(t.app.baseUrl, cookie)).toBe(csrfToken);

    const web = await post('/api/public', { cookie, headers: { 'X-CSRF-Token': csrfToken } });
    expect(await web.json()).toEqual({ web: true });
  });

  it('a token fetched before sign-in is void afterwards: the page fetches a fresh one', async () => {
    const start = await get(`${t.app.baseUrl}/api/csrf-token`);
    const anonymousToken = ((await start.json()) as { csrfToken: string }).csrfToken;
    const cookie = await signInAs(t.app.baseUrl, 'ivan');
    const stale = await post('/api/things', { cookie, headers: { 'X-CSRF-Token': anonymousToken } });
    expect(stale.status).toBe(403);
    const fresh = await csrfTokenFor(t.app.baseUrl, cookie);
    expect(fresh).not.toBe(anonymousToken);
    expect((await post('/api/things', { cookie, headers: { 'X-CSRF-Token': fresh } })).status).toBe(200);
  });
});
