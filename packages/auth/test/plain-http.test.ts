import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkSignIn } from '../src/testing.js';
import { createAuth } from '../src/index.js';
import { setUpAuthTests, startTestApp, type TestApp } from './test-app.js';

// A production service's session cookie is Secure, and browsers keep a Secure cookie only from
// https: over plain http the OAuth state never comes back, and every sign-in fails. The service
// says so at start and on the failure page instead of a bare "Sign-in failed".
const t = setUpAuthTests();

describe('a Secure session cookie on a plain-http public URL', () => {
  let secureOnHttp: TestApp;
  beforeAll(async () => {
    secureOnHttp = await startTestApp({ database: t.database, idp: t.idp, secureCookies: true, trustsProxy: false });
  });
  afterAll(async () => {
    await secureOnHttp?.close();
  });

  it('is warned about at start, naming https and TRUST_PROXY', () => {
    expect(secureOnHttp.warnings).toHaveLength(1);
    expect(secureOnHttp.warnings[0]).toContain(`Sign-in cookies need https`);
    expect(secureOnHttp.warnings[0]).toContain(`the public URL ${secureOnHttp.baseUrl} is plain http`);
    expect(secureOnHttp.warnings[0]).toContain('TRUST_PROXY');
    expect(secureOnHttp.warnings[0]).toContain('X-Forwarded-Proto: https');
  });

  it('makes a sign-in over plain http end at /?error=https_required, and logs why', async () => {
    const { endedAt, cookie } = await walkSignIn(secureOnHttp.baseUrl, 'alice');
    expect(endedAt.pathname + endedAt.search).toBe('/?error=https_required');
    expect(cookie).toBe('');
    expect(secureOnHttp.warnings.at(-1)).toMatch(
      /^A sign-in failed: it came over plain http, and the session cookie is Secure/,
    );
    expect(secureOnHttp.signIns).not.toContain('alice');
  });

  it('still signs in when a trusted proxy says the request came over https', async () => {
    const { endedAt, cookie } = await walkSignIn(secureOnHttp.baseUrl, 'bob', { 'X-Forwarded-Proto': 'https' });
    expect(endedAt.pathname + endedAt.search).toBe('/');
    expect(cookie).toMatch(/^test\.sid=/);
    expect(secureOnHttp.signIns).toContain('bob');
  });
});

describe('no warning', () => {
  it('for a Secure cookie behind a trusted proxy (TRUST_PROXY set)', async () => {
    const behindProxy = await startTestApp({
      database: t.database,
      idp: t.idp,
      secureCookies: true,
      trustsProxy: true,
    });
    await behindProxy.close();
    expect(behindProxy.warnings).toEqual([]);
  });

  it('for a cookie that is not Secure (development on http)', () => {
    expect(t.app.warnings).toEqual([]);
  });

  it('for an https public URL', async () => {
    const warnings: string[] = [];
    const auth = createAuth({
      pool: t.database.pool,
      sessionSecret: 'test-secret-that-is-long-enough-0123456789',
      sessionTtlMs: 60_000,
      secureCookies: true,
      cookieName: 'test.sid',
      sessionTable: 'session',
      publicUrl: 'https://paste.example.com',
      oauth: t.idp.oauth,
      trustsProxy: false,
      warn: (message) => {
        warnings.push(message);
      },
    });
    await auth.close();
    expect(warnings).toEqual([]);
  });

  it('and an ordinary failed sign-in over http (cookie not Secure) still ends at /?error=auth_failed', async () => {
    const response = await fetch(`${t.app.baseUrl}/auth/idp/callback?code=x&state=forged`, { redirect: 'manual' });
    expect(response.headers.get('location')).toBe('/?error=auth_failed');
    expect(t.app.warnings).toEqual([]);
  });
});
