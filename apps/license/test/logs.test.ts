import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { csrfTokenFor, walkSignIn } from '@app/auth/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { createLicenseLogger } from '../src/common/logger.js';
import { maskLicenseKeys } from '../src/common/license-key.js';
import { buildTestApp, testAdminId, type TestApp } from './helpers.js';

/** Everything the app's logger writes, as the text that would reach standard output. */
function logCapture(level: string) {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text.push(String(chunk));
      callback();
    },
  });
  return { logger: createLicenseLogger({ level, destination }), text, all: () => text.join('') };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe(`the license service's logs hold no secrets, at trace level (${testDatabaseBackend()})`, () => {
  const log = logCapture('trace');
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ logger: log.logger, env: { JWT_SECRET: 'a-test-secret-that-is-long-enough-for-hs256' } });
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    log.text.length = 0;
  });

  it.each([
    {
      header: 'Cookie',
      value: (secret: string) => `license.sid=${secret}`,
      path: '/api/products',
      method: 'get' as const,
    },
    { header: 'Authorization', value: (secret: string) => `Bearer ${secret}`, path: '/api/products' },
    { header: 'X-API-Key', value: (secret: string) => secret, path: '/api/customers' },
    { header: 'X-CSRF-Token', value: (secret: string) => secret, path: '/api/products', method: 'post' as const },
    {
      header: 'X-Delete-Token',
      value: (secret: string) => secret,
      path: '/api/licenses/00000000-0000-0000-0000-000000000000',
      method: 'delete' as const,
    },
    { header: 'X-Paste-Password', value: (secret: string) => secret, path: '/' },
    {
      header: 'Stripe-Signature',
      value: (secret: string) => `t=1,v1=${secret}`,
      path: '/api/stripe',
      method: 'post' as const,
    },
  ])('the value of $header never reaches the log', async ({ header, value, path, method }) => {
    const secret = `secret-${randomUUID()}`;
    await t.http[method ?? 'get'](path).set(header, value(secret)).send({});
    // A path every request log reaches, so the header is logged (redacted) at least once.
    await t.http.get('/nothing-here').set(header, value(secret));
    await settled();
    expect(log.all()).toContain(`"${header.toLowerCase()}":"[redacted]"`);
    expect(log.all()).not.toContain(secret);
  });

  it('the session cookie a sign-in sets (Set-Cookie) never reaches the log', async () => {
    const { cookie } = await t.admin();
    await t.http.get('/api/products').set('Cookie', cookie);
    await settled();
    const sessionId = cookie
      .split(';')
      .map((pair) => pair.trim())
      .find((pair) => pair.startsWith('license.sid='))!
      .slice('license.sid='.length);
    expect(sessionId.length).toBeGreaterThan(10);
    expect(log.all()).toContain('"set-cookie":"[redacted]"');
    expect(log.all()).toContain('"userId":"admin"');
    expect(log.all()).not.toContain(sessionId);
    expect(log.all()).not.toContain(decodeURIComponent(sessionId));
  });

  it('a license key in a logged line is masked to its prefix and last 4 characters', async () => {
    const { key } = await t.createLicense();
    const { headers } = await t.admin();
    const masked = `TEST-…${key.slice(-4)}`;
    await t.http.get(`/api/license/${key}`);
    await t.http.get(`/api/licenses?search=${key}`).set(headers);
    await t.http.post('/api/license/validate').send({ key });
    await t.http
      .post('/api/license/rotate')
      .set(headers)
      .send({ key: `${key}x` });
    await settled();
    expect(log.all()).toContain(`"path":"/api/license/${masked}"`);
    expect(log.all()).toContain(`"search":"${masked}"`);
    expect(log.all()).not.toContain(key);
    expect(log.all()).not.toContain(key.slice('TEST-'.length, -4));
  });

  it('a whole session carrying every kind of secret leaves none of them in the log, and license keys only masked', async () => {
    // Sign-in through the identity provider: the OAuth state (in the redirect's Location and the
    // callback's query), the code (in the callback's query) and the session cookie it sets.
    const { cookie, visited } = await walkSignIn(t.baseUrl, testAdminId);
    const callback = visited.find((url) => url.pathname === '/auth/idp/callback')!;
    const code = callback.searchParams.get('code')!;
    const state = callback.searchParams.get('state')!;
    const sessionId = decodeURIComponent(
      cookie
        .split(';')
        .map((pair) => pair.trim())
        .find((pair) => pair.startsWith('license.sid='))!
        .slice('license.sid='.length),
    );
    const csrf = await csrfTokenFor(t.baseUrl, cookie);
    const session = { Cookie: cookie, 'X-CSRF-Token': csrf };
    // A bearer JWT (answered in a body), then used.
    const issued = await t.http.post('/api/auth/token').set(session);
    expect(issued.status).toBe(200);
    const jwt = issued.body.token as string;
    const bearer = { Authorization: `Bearer ${jwt}` };
    // A license key: in a path, a query, a validation body and an admin's answers.
    const product = await t.createProduct({ licensePrefix: 'LOGS' });
    const created = await t.http.post('/api/licenses').set(bearer).send({ product: product._id });
    expect(created.status).toBe(201);
    const key = (created.body.license ?? created.body).key as string;
    await t.http.get(`/api/license/${key}`);
    const refererToken = `referer-${randomUUID()}`;
    await t.http
      .get(`/api/licenses?search=${key}`)
      .set(bearer)
      .set('Referer', `${t.baseUrl}/licenses?key=${key}&token=${refererToken}`);
    await t.http.post('/api/license/validate').send({ key });
    // A Stripe signature (its route is not request-logged, an ordinary one is), an API key and the
    // paste service's headers sent here too, for good measure.
    const stripeSignature = `t=1,v1=${randomUUID()}`;
    await t.http
      .post('/api/stripe')
      .set('Stripe-Signature', stripeSignature)
      .send({ id: 'evt_1', type: 'checkout.session.completed' });
    await t.http.get('/api/products').set(bearer).set('Stripe-Signature', stripeSignature);
    const apiKey = `key-${randomUUID()}`;
    const deleteToken = `delete-${randomUUID()}`;
    const pastePassword = `password-${randomUUID()}`;
    await t.http
      .get('/api/products')
      .set('X-API-Key', apiKey)
      .set('X-Delete-Token', deleteToken)
      .set('X-Paste-Password', pastePassword);
    await t.http.get('/api/products').set(session);
    await settled();

    const all = log.all();
    for (const header of [
      'cookie',
      'set-cookie',
      'authorization',
      'x-api-key',
      'x-csrf-token',
      'x-delete-token',
      'x-paste-password',
      'stripe-signature',
    ]) {
      expect(all).toContain(`"${header}":"[redacted]"`);
    }
    expect(all).toContain('"query":{"code":"[redacted]","state":"[redacted]"}');
    const masked = `LOGS-…${key.slice(-4)}`;
    expect(all).toContain(`"path":"/api/license/${masked}"`);
    expect(all).toContain(`"search":"${masked}"`);
    const secrets = {
      code,
      state,
      sessionId,
      csrf,
      jwt,
      key,
      keyBody: key.slice('LOGS-'.length, -4),
      refererToken,
      stripeSignature,
      apiKey,
      deleteToken,
      pastePassword,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(all.includes(secret), `${name} in the log`).toBe(false);
      expect(all.includes(encodeURIComponent(secret)), `${name} (URL-encoded) in the log`).toBe(false);
    }
  });

  it('a JWT an admin obtains never reaches the log', async () => {
    const res = await t.http.post('/api/auth/token').set((await t.admin()).headers);
    await t.http.get('/api/products').set('Authorization', `Bearer ${res.body.token}`);
    await settled();
    expect(log.all()).toContain('"authorization":"[redacted]"');
    expect(log.all()).not.toContain(res.body.token);
  });
});

describe('maskLicenseKeys', () => {
  it.each([
    { text: 'key ACME-aB3dE5fG7hJ9kL1mN3pQ5rS7 here', masked: 'key ACME-…5rS7 here' },
    { text: '/api/license/MY-APP_2-0123456789abcdefghijWXYZ?x=1', masked: '/api/license/MY-APP_2-…WXYZ?x=1' },
    {
      text: '"key":"LIC-ABCDEFGHIJKLMNOPQRSTUVWX","other":"LIC-ABCDEFGHIJKLMNOPQRSTUVWX"',
      masked: '"key":"LIC-…UVWX","other":"LIC-…UVWX"',
    },
  ])('masks $text', ({ text, masked }) => {
    expect(maskLicenseKeys(text)).toBe(masked);
  });

  it.each(['b3a7c1f0-9d2e-4f6a-8b1c-2d3e4f5a6b7c', 'TEST-tooShort123', 'TEST-0123456789abcdefghijWXYZ0'])(
    'leaves %s alone (not a license key)',
    (text) => {
      expect(maskLicenseKeys(text)).toBe(text);
    },
  );
});
