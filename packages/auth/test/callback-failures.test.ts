import { describe, expect, it } from 'vitest';
import type { MutableResponse } from '@app/dev-idp';
import { get, setCookie, setUpAuthTests } from './test-app.js';

const t = setUpAuthTests();

/** Runs the chain up to the provider's redirect back; `tamper` may change that callback URL. */
async function signInEndingAt(
  userId: string,
  tamper: (callback: URL) => void = () => {},
  sendCookie = true,
): Promise<string | null> {
  const start = await get(`${t.app.baseUrl}/auth/idp?login_hint=${encodeURIComponent(userId)}`);
  const cookie = setCookie(start, 'test.sid')?.pair;
  const atProvider = await get(start.headers.get('location')!);
  const callback = new URL(atProvider.headers.get('location')!);
  tamper(callback);
  const done = await get(callback.href, sendCookie ? cookie : undefined);
  expect(done.status).toBe(302);
  if (done.headers.get('location') === '/') return '/';
  // A failed callback must not leave a signed-in session behind.
  const status = await get(`${t.app.baseUrl}/auth/status`, setCookie(done, 'test.sid')?.pair ?? cookie);
  expect((await status.json()).authenticated).toBe(false);
  return done.headers.get('location');
}

function answerOnce(event: 'beforeResponse' | 'beforeUserinfo', change: (response: MutableResponse) => void): void {
  t.idp.service.once(event, change);
}

describe('when the callback fails, the visitor lands on the homepage with an error code', () => {
  it.each([
    {
      name: 'a state that differs from the one stored in the session',
      tamper: (url: URL) => url.searchParams.set('state', 'forged'),
      sendCookie: true,
    },
    { name: 'a missing state', tamper: (url: URL) => url.searchParams.delete('state'), sendCookie: true },
    { name: 'a callback without the session that started the sign-in', tamper: () => {}, sendCookie: false },
    {
      name: 'the provider redirecting back with access_denied',
      tamper: (url: URL) => {
        url.searchParams.delete('code');
        url.searchParams.set('error', 'access_denied');
      },
      sendCookie: true,
    },
    {
      name: 'the provider redirecting back with server_error',
      tamper: (url: URL) => {
        url.searchParams.delete('code');
        url.searchParams.set('error', 'server_error');
      },
      sendCookie: true,
    },
    {
      name: 'a callback with neither a code nor an error',
      tamper: (url: URL) => {
        url.search = '';
      },
      sendCookie: true,
    },
    {
      name: 'a code the provider never issued',
      tamper: (url: URL) => url.searchParams.set('code', 'made-up'),
      sendCookie: true,
    },
  ])('$name ends at /?error=auth_failed', async ({ tamper, sendCookie }) => {
    expect(await signInEndingAt('mallory', tamper, sendCookie)).toBe('/?error=auth_failed');
  });

  it('a token endpoint failure ends at /?error=auth_failed', async () => {
    answerOnce('beforeResponse', (response) => {
      response.statusCode = 500;
      response.body = { error: 'server_error' };
    });
    expect(await signInEndingAt('dave')).toBe('/?error=auth_failed');
  });

  it('a user-info failure other than 429 ends at /?error=auth_failed', async () => {
    answerOnce('beforeUserinfo', (response) => {
      response.statusCode = 401;
      response.body = { error: 'invalid_token' };
    });
    expect(await signInEndingAt('dave')).toBe('/?error=auth_failed');
  });

  it('the provider answering 429 at the token endpoint ends at /?error=rate_limited', async () => {
    answerOnce('beforeResponse', (response) => {
      response.statusCode = 429;
      response.body = { error: 'slow_down' };
    });
    expect(await signInEndingAt('erin')).toBe('/?error=rate_limited');
  });

  it('the provider answering 429 without an OAuth error body at the token endpoint ends at /?error=rate_limited', async () => {
    answerOnce('beforeResponse', (response) => {
      response.statusCode = 429;
      response.body = 'Too Many Requests' as unknown as Record<string, unknown>;
    });
    expect(await signInEndingAt('erin')).toBe('/?error=rate_limited');
  });

  it('the provider answering 429 at the user-info endpoint ends at /?error=rate_limited', async () => {
    answerOnce('beforeUserinfo', (response) => {
      response.statusCode = 429;
      response.body = { error: 'rate_limited' };
    });
    expect(await signInEndingAt('erin')).toBe('/?error=rate_limited');
  });

  it('the provider reporting temporarily_unavailable on the redirect back ends at /?error=rate_limited', async () => {
    const location = await signInEndingAt('erin', (url) => {
      url.searchParams.delete('code');
      url.searchParams.set('error', 'temporarily_unavailable');
    });
    expect(location).toBe('/?error=rate_limited');
  });

  it.each([
    { name: 'no id at all', body: { username: 'ghost' } },
    { name: 'an empty id', body: { id: '', sub: '  ', username: 'ghost' } },
    { name: 'not an object', body: ['ghost'] },
  ])('a user-info answer with $name ends at /?error=no_user', async ({ body }) => {
    answerOnce('beforeUserinfo', (response) => {
      response.body = body as unknown as Record<string, unknown>;
    });
    expect(await signInEndingAt('ghost')).toBe('/?error=no_user');
  });

  it('a user-info answer with only the standard claims signs in through the fallbacks (sub, preferred_username)', async () => {
    answerOnce('beforeUserinfo', (response) => {
      response.body = { sub: 'oidc-user', preferred_username: 'Oidc User' };
    });
    const start = await get(`${t.app.baseUrl}/auth/idp?login_hint=oidc-user`);
    const atProvider = await get(start.headers.get('location')!);
    const done = await get(atProvider.headers.get('location')!, setCookie(start, 'test.sid')?.pair);
    expect(done.headers.get('location')).toBe('/');
    const status = await get(`${t.app.baseUrl}/auth/status`, setCookie(done, 'test.sid')?.pair);
    expect((await status.json()).user).toEqual({ id: 'oidc-user', username: 'Oidc User' });
  });
});
