import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortInUseError } from '@app/config';
import { DEV_CLIENT_ID, DEV_CLIENT_SECRET, escapeHtml, startDevIdp, type DevIdp } from '../src/index.js';

const redirectUri = 'http://app.test/auth/idp/callback';
let idp: DevIdp;

beforeAll(async () => {
  idp = await startDevIdp({ port: 0 });
});

afterAll(async () => {
  await idp?.stop();
});

function authorizeUrl(extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    client_id: DEV_CLIENT_ID,
    response_type: 'code',
    redirect_uri: redirectUri,
    state: 'state-123',
    scope: 'openid profile',
    ...extra,
  });
  return `${idp.oauth.authorizationURL}?${params}`;
}

async function codeFor(userId: string): Promise<string> {
  const response = await fetch(authorizeUrl({ login_hint: userId }), { redirect: 'manual' });
  return new URL(response.headers.get('location')!).searchParams.get('code')!;
}

function exchange(fields: Record<string, string>): Promise<Response> {
  return fetch(idp.oauth.tokenURL, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      client_id: DEV_CLIENT_ID,
      client_secret: DEV_CLIENT_SECRET,
      ...fields,
    }),
  });
}

describe('development identity provider', () => {
  it('offers settings that point at itself, with fixed client credentials', () => {
    expect(idp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(idp.oauth).toEqual({
      authorizationURL: `${idp.url}/authorize`,
      tokenURL: `${idp.url}/token`,
      userInfoURL: `${idp.url}/userinfo`,
      clientID: DEV_CLIENT_ID,
      clientSecret: DEV_CLIENT_SECRET,
      scope: 'openid profile',
      idField: 'id',
      usernameField: 'username',
    });
  });

  it('without login_hint shows a form asking for a user id that carries the request along', async () => {
    const response = await fetch(authorizeUrl(), { redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<form method="get" action="/authorize">');
    expect(html).toMatch(/<input type="text" id="login_hint" name="login_hint" required/);
    expect(html).toContain('<input type="hidden" name="state" value="state-123">');
    expect(html).toContain(`<input type="hidden" name="redirect_uri" value="${redirectUri}">`);
    expect(html).toContain('app.test');
  });

  it('escapes everything it echoes into the form', async () => {
    const hostile = '"><script>alert(1)</script>';
    const response = await fetch(authorizeUrl({ state: hostile, [`x${hostile}`]: hostile }), { redirect: 'manual' });
    const html = await response.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain(`value="${escapeHtml(hostile)}"`);
    expect(html).toContain(`name="x${escapeHtml(hostile)}"`);
  });

  it('submitting the form (the same request plus login_hint) signs that user in and returns the state unchanged', async () => {
    const state = 'a state with spaces & "quotes"';
    const page = await (await fetch(authorizeUrl({ state }))).text();
    // Rebuild the GET the browser would send from the form's fields.
    const fields = new URLSearchParams();
    for (const match of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields.set(unescape(match[1]!), unescape(match[2]!));
    }
    fields.set('login_hint', 'carol');
    const response = await fetch(`${idp.url}/authorize?${fields}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe(state);
    const token = await (await exchange({ code: back.searchParams.get('code')! })).json();
    const info = await fetch(idp.oauth.userInfoURL, { headers: { Authorization: `Bearer ${token.access_token}` } });
    expect(await info.json()).toEqual({ sub: 'carol', id: 'carol', username: 'carol', preferred_username: 'carol' });
  });

  it('with login_hint signs the user in without the form: code, token, user-info', async () => {
    const response = await fetch(authorizeUrl({ login_hint: 'alice' }), { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('state-123');
    const tokenResponse = await exchange({ code: back.searchParams.get('code')! });
    expect(tokenResponse.status).toBe(200);
    const token = await tokenResponse.json();
    expect(token.token_type).toBe('Bearer');
    // The token is a real JWT from oauth2-mock-server, issued to the chosen user.
    const payload = JSON.parse(Buffer.from(token.access_token.split('.')[1], 'base64url').toString());
    expect(payload.sub).toBe('alice');
    const info = await fetch(idp.oauth.userInfoURL, { headers: { Authorization: `Bearer ${token.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({ sub: 'alice', id: 'alice', username: 'alice', preferred_username: 'alice' });
  });

  it('a code works once', async () => {
    const code = await codeFor('dave');
    expect((await exchange({ code })).status).toBe(200);
    const again = await exchange({ code });
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
  });

  it.each<{ name: string; fields: Record<string, string>; status: number; error: string }>([
    { name: 'a wrong client secret', fields: { client_secret: 'wrong' }, status: 401, error: 'invalid_client' },
    { name: 'an unknown client', fields: { client_id: 'other' }, status: 401, error: 'invalid_client' },
    {
      name: 'another redirect_uri',
      fields: { redirect_uri: 'http://evil.test/cb' },
      status: 400,
      error: 'invalid_grant',
    },
    {
      name: 'another grant type',
      fields: { grant_type: 'client_credentials' },
      status: 400,
      error: 'unsupported_grant_type',
    },
  ])('the token endpoint refuses $name', async ({ fields, status, error }) => {
    const response = await exchange({ code: await codeFor('erin'), ...fields });
    expect(response.status).toBe(status);
    expect((await response.json()).error).toBe(error);
  });

  it('user-info refuses a missing or unknown token', async () => {
    expect((await fetch(idp.oauth.userInfoURL)).status).toBe(401);
    expect((await fetch(idp.oauth.userInfoURL, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it.each<{ name: string; extra: Record<string, string> }>([
    { name: 'an unknown client_id', extra: { client_id: 'other' } },
    { name: 'a response_type other than code', extra: { response_type: 'token' } },
    { name: 'a redirect_uri that is not a URL', extra: { redirect_uri: 'not a url' } },
    { name: 'a javascript: redirect_uri', extra: { redirect_uri: 'javascript:alert(1)' } },
  ])('the authorization page refuses $name', async ({ extra }) => {
    const response = await fetch(authorizeUrl({ login_hint: 'frank', ...extra }), { redirect: 'manual' });
    expect(response.status).toBe(400);
  });
});

function unescape(value: string): string {
  return value.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)));
}

describe('a port already in use', () => {
  it('refuses with PortInUseError, whose one line names DEV_IDP_PORT', async () => {
    const port = Number(new URL(idp.url).port);
    const refused = await startDevIdp({ port }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PortInUseError);
    expect((refused as Error).message).toBe(
      `Port ${port} is in use: another npm start may be running. Stop it, or set DEV_IDP_PORT to a free port (e.g. DEV_IDP_PORT=${port + 1}).`,
    );
  });
});
