import { createHmac, generateKeyPairSync } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

const secret = 'a-test-secret-that-is-long-enough-for-hs256';
const hs256 = (
  claims: Record<string, unknown>,
  sub = 'admin',
  exp: number | null = Math.floor(Date.now() / 1000) + 600,
) => {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(sub);
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(secret));
};

/** A token signed with the secret whose header and payload are exactly these (no library shapes them). */
const signedAs = (payload: Record<string, unknown>, alg: 'HS256' | 'HS512' = 'HS256') => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg, typ: 'JWT' })}.${part(payload)}`;
  return `${input}.${createHmac(alg === 'HS256' ? 'sha256' : 'sha512', secret)
    .update(input)
    .digest('base64url')}`;
};
const inTenMinutes = () => Math.floor(Date.now() / 1000) + 600;

describe('JWT bearer access (HS256)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { JWT_SECRET: secret } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a signed-in admin obtains a token from POST /api/auth/token and programs use it without a session or CSRF token', async () => {
    const admin = await t.admin();
    const res = await t.http.post('/api/auth/token').set(admin.headers);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      tokenType: 'Bearer',
      token: expect.any(String),
      expiresAt: expect.any(String),
    });
    const bearer = { Authorization: `Bearer ${res.body.token}` };
    expect((await t.http.get('/api/products').set(bearer)).status).toBe(200);
    const created = await t.http.post('/api/products').set(bearer).send({ name: 'By token', licensePrefix: 'TOK' });
    expect(created.status).toBe(201);
    expect((await t.http.post('/api/auth/token')).status).toBe(401);
  });

  it('refuses alg none, a missing or past exp, a wrong signature, and answers 403 for a non-admin subject', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'admin', exp: Math.floor(Date.now() / 1000) + 600 })).toString(
      'base64url',
    );
    const tokens = [
      `${header}.${payload}.`,
      await hs256({}, 'admin', null),
      await hs256({}, 'admin', Math.floor(Date.now() / 1000) - 10),
      (await hs256({})).slice(0, -2) + 'xx',
      'not-a-jwt',
    ];
    for (const token of tokens) {
      const res = await t.http.get('/api/products').set('Authorization', `Bearer ${token}`);
      expect(res.status, token).toBe(401);
      expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
    }
    const stranger = await t.http.get('/api/products').set('Authorization', `Bearer ${await hs256({}, 'stranger')}`);
    expect(stranger.status).toBe(403);
  });

  it('accepts a correctly signed token carrying the claims as their types', async () => {
    const res = await t.http
      .get('/api/products')
      .set('Authorization', `Bearer ${signedAs({ sub: 'admin', exp: inTenMinutes(), jti: 'id-1' })}`);
    expect(res.status).toBe(200);
  });

  it.each([
    ['a subject that is an array', { sub: ['admin'] }],
    ['a subject that is a number', { sub: 12345 }],
    ['a subject that is an object', { sub: { id: 'admin' } }],
    ['an empty subject', { sub: '' }],
    ['no expiry', { sub: 'admin', exp: undefined }],
    ['an expiry that is a string', { sub: 'admin', exp: 'tomorrow' }],
    ['an expiry that is a numeric string', { sub: 'admin', exp: String(inTenMinutes()) }],
    ['a token id that is not a string', { sub: 'admin', jti: 7 }],
  ])('refuses a signed token with %s: 401 Unauthorized', async (_case, claims) => {
    const payload: Record<string, unknown> = { exp: inTenMinutes(), ...claims };
    for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
    const res = await t.http.get('/api/products').set('Authorization', `Bearer ${signedAs(payload)}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
  });

  it('refuses a token signed with the right secret under another algorithm (HS512): the algorithm is pinned', async () => {
    const res = await t.http
      .get('/api/products')
      .set('Authorization', `Bearer ${signedAs({ sub: 'admin', exp: inTenMinutes() }, 'HS512')}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
  });

  it('authenticates a bearer request by the token alone, never by the session beside it', async () => {
    const admin = await t.admin();
    const res = await t.http.get('/api/products').set('Cookie', admin.cookie).set('Authorization', 'Bearer broken');
    expect(res.status).toBe(401);
  });
});

describe('JWT bearer access (EdDSA public key)', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { JWT_PUBLIC_KEY: publicPem } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('accepts tokens signed by the matching private key only', async () => {
    const key = await importPKCS8(privatePem, 'EdDSA');
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject('admin')
      .setExpirationTime('10m')
      .sign(key);
    expect((await t.http.get('/api/products').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const hs = await hs256({});
    expect((await t.http.get('/api/products').set('Authorization', `Bearer ${hs}`)).status).toBe(401);
  });

  it('when only the public key is configured, POST /api/auth/token answers 501 naming JWT_PRIVATE_KEY', async () => {
    const res = await t.http.post('/api/auth/token').set((await t.admin()).headers);
    expect(res.status).toBe(501);
    expect(res.body).toEqual({
      success: false,
      error:
        'JWT issuing is not configured: this service only verifies tokens with JWT_PUBLIC_KEY; set JWT_PRIVATE_KEY (its private key) to issue them here',
    });
  });
});

describe('JWT not configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('POST /api/auth/token answers 501 saying JWT is not configured and which variables turn it on', async () => {
    const res = await t.http.post('/api/auth/token').set((await t.admin()).headers);
    expect(res.status).toBe(501);
    expect(res.body).toEqual({
      success: false,
      error: 'JWT is not configured: set JWT_SECRET (HS256), or JWT_PUBLIC_KEY with JWT_PRIVATE_KEY (RS256 or EdDSA)',
    });
  });

  it('an anonymous caller still gets 401 first, and a bearer token is refused with 401', async () => {
    expect((await t.http.post('/api/auth/token')).status).toBe(401);
    expect((await t.http.get('/api/products').set('Authorization', 'Bearer a.b.c')).status).toBe(401);
  });
});
