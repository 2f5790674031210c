import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { csrfTokenFor, walkSignIn } from '@app/auth/testing';
import { createLogger } from '@app/http';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

/** Everything the app's logger writes, as the text that would reach standard output. */
function logCapture(level: string) {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text.push(String(chunk));
      callback();
    },
  });
  return { logger: createLogger({ level, destination, name: 'paste' }), text, all: () => text.join('') };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

const chrome = {
  'User-Agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  Accept:
    'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
  'Accept-Language': 'en-GB,en-US;q=0.9,en;q=0.8',
  'Accept-Encoding': 'gzip, deflate, br, zstd',
  'Sec-Ch-Ua': '"Not/A)Brand";v="8", "Chromium";v="126", "Google Chrome";v="126"',
  'Sec-Fetch-Dest': 'document',
  'Sec-Fetch-Mode': 'navigate',
};

describe(`the paste service's logs hold no secrets, at trace level (${testDatabaseBackend()})`, () => {
  const log = logCapture('trace');
  let site: TestSite;
  let slug: string;
  beforeAll(async () => {
    site = await startTestSite(undefined, { logger: log.logger });
    slug = await site.createPaste({ content: 'a paste', password: 'paste-password' });
  });
  afterAll(async () => {
    await site?.close();
  });
  beforeEach(() => {
    log.text.length = 0;
  });

  it.each([
    { header: 'Cookie', value: (secret: string) => `paste.sid=${secret}`, send: (s: TestSite) => s.http.get('/') },
    {
      header: 'Authorization',
      value: (secret: string) => `Bearer ${secret}`,
      send: (s: TestSite) => s.http.post('/api/paste').send({ content: 'x' }),
    },
    { header: 'X-API-Key', value: (secret: string) => secret, send: (s: TestSite) => s.http.get('/api/settings') },
    {
      header: 'X-CSRF-Token',
      value: (secret: string) => secret,
      send: (s: TestSite) => s.http.post('/api/settings/general').send({ siteName: 'x' }),
    },
    {
      header: 'X-Delete-Token',
      value: (secret: string) => secret,
      send: (s: TestSite) => s.http.delete(`/api/paste/${slug}`),
    },
    {
      header: 'X-Paste-Password',
      value: (secret: string) => secret,
      send: (s: TestSite) => s.http.get(`/paste/${slug}`),
    },
    {
      header: 'Stripe-Signature',
      value: (secret: string) => `t=1,v1=${secret}`,
      send: (s: TestSite) => s.http.post('/api/paste').send({ content: 'x' }),
    },
  ])('the value of $header never reaches the log', async ({ header, value, send }) => {
    const secret = `secret-${randomUUID()}`;
    await send(site).set(header, value(secret));
    await settled();
    // The request was logged, with its headers (trace includes debug), the secret one redacted.
    expect(log.all()).toContain(`"${header.toLowerCase()}":"[redacted]"`);
    expect(log.all()).not.toContain(secret);
  });

  it('the session cookie a sign-in sets (Set-Cookie) never reaches the log', async () => {
    const { cookie } = await site.session(OWNER_ID);
    await site.http.get('/api/settings').set('Cookie', cookie);
    await settled();
    const sessionId = cookie
      .split(';')
      .map((pair) => pair.trim())
      .find((pair) => pair.startsWith('paste.sid='))!
      .slice('paste.sid='.length);
    expect(sessionId.length).toBeGreaterThan(10);
    expect(log.all()).toContain('"set-cookie":"[redacted]"');
    expect(log.all()).toContain(`"userId":"${OWNER_ID}"`);
    expect(log.all()).not.toContain(sessionId);
    expect(log.all()).not.toContain(decodeURIComponent(sessionId));
  });

  it('a whole session carrying every kind of secret leaves none of them in the log', async () => {
    // Sign-in through the identity provider: the OAuth state (in the redirect's Location and the
    // callback's query), the code (in the callback's query) and the session cookie it sets.
    const { cookie, visited } = await walkSignIn(site.baseUrl, OWNER_ID);
    const callback = visited.find((url) => url.pathname === '/auth/idp/callback')!;
    const code = callback.searchParams.get('code')!;
    const state = callback.searchParams.get('state')!;
    const sessionId = decodeURIComponent(
      cookie
        .split(';')
        .map((pair) => pair.trim())
        .find((pair) => pair.startsWith('paste.sid='))!
        .slice('paste.sid='.length),
    );
    const csrf = await csrfTokenFor(site.baseUrl, cookie);
    // An API key (answered in a body, then sent as X-API-Key and as a bearer token).
    const created = await site.http
      .post('/api/settings/api-keys')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .send({ name: 'logs' });
    const apiKey = created.body.apiKey.key as string;
    await site.settings.update({ apiKeyProtection: true });
    try {
      // A command-line create: the paste password in X-Paste-Password, the delete token answered in X-Delete-Token.
      const password = `password-${randomUUID()}`;
      const plain = await site.http
        .post('/api/paste')
        .set('X-API-Key', apiKey)
        .set('Content-Type', 'text/plain')
        .set('X-Paste-Password', password)
        .send(`content ${randomUUID()}`);
      expect(plain.status).toBe(200);
      const deleteToken = plain.headers['x-delete-token'] as string;
      const plainSlug = plain.text.trim().split('/').pop()!;
      // The password checked, wrong and right, in a form and in JSON.
      await site.http
        .post(`/paste/${plainSlug}/verify`)
        .type('form')
        .set('Accept', 'text/html')
        .send({ password: `${password}-wrong` });
      expect((await site.http.post(`/paste/${plainSlug}/verify`).send({ password })).status).toBe(200);
      // A JSON create with a bearer key (its delete token answered in the body), a Referer whose query holds a token.
      const json = await site.http
        .post('/api/paste')
        .set('Authorization', `Bearer ${apiKey}`)
        .send({ content: 'json', password });
      expect(json.status).toBe(200);
      const refererToken = `referer-${randomUUID()}`;
      await site.http.get(`/paste/${json.body.slug}`).set('Referer', `${site.baseUrl}/somewhere?token=${refererToken}`);
      // Owner actions with the session's cookie and CSRF token; a Stripe signature sent for good measure.
      const stripeSignature = `t=1,v1=${randomUUID()}`;
      expect(
        (await site.http.get('/api/settings').set('Cookie', cookie).set('Stripe-Signature', stripeSignature)).status,
      ).toBe(200);
      // The delete tokens, in X-Delete-Token.
      expect((await site.http.delete(`/api/paste/${plainSlug}`).set('X-Delete-Token', deleteToken)).status).toBe(200);
      expect(
        (await site.http.delete(`/api/paste/${json.body.slug}`).set('X-Delete-Token', json.body.deleteToken)).status,
      ).toBe(200);
      await settled();

      const all = log.all();
      // The headers were logged (trace includes debug), the secret ones redacted, in requests and answers.
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
      expect(all).toMatch(/"res":\{"headers":\{[^}]*"x-delete-token":"\[redacted\]"/);
      expect(all).toContain('"query":{"code":"[redacted]","state":"[redacted]"}');
      const secrets = {
        code,
        state,
        sessionId,
        csrf,
        apiKey,
        password,
        deleteToken,
        jsonDeleteToken: json.body.deleteToken,
        refererToken,
        stripeSignature,
      };
      for (const [name, secret] of Object.entries(secrets)) {
        expect(secret.length, name).toBeGreaterThan(8);
        expect(all.includes(secret), `${name} in the log`).toBe(false);
        expect(all.includes(encodeURIComponent(secret)), `${name} (URL-encoded) in the log`).toBe(false);
      }
    } finally {
      await site.settings.update({ apiKeyProtection: false });
    }
  });

  it('neither a request body nor the query values that may be credentials reach the log', async () => {
    const secret = `secret-${randomUUID()}`;
    await site.http.post('/api/paste').send({ content: `content ${secret}`, password: secret });
    await site.http.post(`/paste/${slug}/verify`).type('form').send({ password: secret });
    await site.http.get(`/paste/${slug}?token=${secret}&view=plain`);
    await settled();
    expect(log.all()).toContain('"query":{"token":"[redacted]","view":"plain"}');
    expect(log.all()).not.toContain(secret);
  });
});

describe(`the paste service's request lines at info (${testDatabaseBackend()})`, () => {
  const log = logCapture('info');
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite(undefined, { logger: log.logger });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('a paste view from a browser is one line of at most 300 bytes: method, path, status, duration, request id; no headers, no query', async () => {
    const slug = await site.createPaste({ content: 'hello' });
    log.text.length = 0;
    await site.http.get(`/paste/${slug}?utm_source=newsletter`).set(chrome).expect(200);
    await settled();
    expect(log.text).toHaveLength(1);
    const [line] = log.text;
    expect(Buffer.byteLength(line!)).toBeLessThanOrEqual(300);
    expect(JSON.parse(line!)).toMatchObject({
      level: 30,
      name: 'paste',
      method: 'GET',
      path: `/paste/${slug}`,
      status: 200,
      ms: expect.any(Number),
      reqId: expect.any(String),
      msg: 'request completed',
    });
    expect(line).not.toMatch(/Mozilla|utm_source|headers/);
  });
});
