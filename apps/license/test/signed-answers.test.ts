import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { testDatabaseBackend } from '@app/db/testing';
import { machineAnswer, seatFreedAnswer } from '../src/machines/machines.routes.js';
import { signedErrorSchema, type SignedRequest } from '../src/signing/signed-answers.js';
import { refusedAnswerSchema, validAnswerSchema } from '../src/validation/validation.routes.js';
import { buildTestApp, type TestApp } from './helpers.js';

// Every signed answer says what it answers: `request` (the key, the hwid or fingerprint, the
// entitlements asked, sorted, and the nonce, as the service read them) and `issuedAt` (the
// service's clock), successes and every kind of refusal alike, on validate and on machines; and
// the signature still covers the exact bytes sent.

let t: TestApp;
/** The service's clock, fixed per test, so issuedAt can be compared exactly. */
let instant = Date.now();
let publicKey: string;

beforeAll(async () => {
  t = await buildTestApp({ now: () => new Date(instant) });
  publicKey = (await t.http.get('/api/license/public-key').expect(200)).body.publicKey;
});
afterAll(async () => {
  await t?.close();
});

interface SignedAnswer {
  status: number;
  body: Record<string, unknown> & { request: SignedRequest; issuedAt: string };
}

/** POSTs raw text or JSON, and checks the signature over the bytes received before parsing them. */
async function post(app: TestApp, path: string, body: unknown, key = publicKey): Promise<SignedAnswer> {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const signature = res.headers.get('x-license-signature');
  expect(signature, `${path} ${res.status}`).toBeTruthy();
  expect(verify(null, bytes, createPublicKey(key), Buffer.from(signature!, 'base64')), 'signature').toBe(true);
  const changed = Buffer.from(bytes);
  changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
  expect(verify(null, changed, createPublicKey(key), Buffer.from(signature!, 'base64')), 'one byte changed').toBe(
    false,
  );
  return { status: res.status, body: JSON.parse(bytes.toString('utf8')) };
}

const none: SignedRequest = { key: null, hwid: null, entitlements: null, nonce: null };
const read = (request: Partial<SignedRequest>): SignedRequest => ({ ...none, ...request });

/** The answer says what it answers and when, and has the shape its route declares for that status. */
function expectSigned(answer: SignedAnswer, request: SignedRequest, schema: z.ZodType, at = instant) {
  expect(answer.body.request).toEqual(request);
  expect(answer.body.issuedAt).toBe(new Date(at).toISOString());
  const checked = schema.safeParse(answer.body);
  expect(checked.success ? [] : checked.error.issues, 'declared schema').toEqual([]);
  // The old field stays for older clients.
  if (request.nonce !== null) expect(answer.body.nonce).toBe(request.nonce);
}

describe(`signed answers carry request and issuedAt (${testDatabaseBackend()})`, () => {
  it('validate: a valid answer states the parsed request, with the key and hwid trimmed and the codes sorted', async () => {
    instant = Date.parse('2026-03-01T10:00:00.000Z');
    const license = await t.createLicense({ hwidLimit: 2 });
    const answer = await post(t, '/api/license/validate', {
      key: `  ${license.key} `,
      hwid: ' pc-1 ',
      entitlements: [],
      nonce: 'n-valid',
    });
    expect(answer.status).toBe(200);
    expectSigned(answer, { key: license.key, hwid: 'pc-1', entitlements: [], nonce: 'n-valid' }, validAnswerSchema);
    const bare = await post(t, '/api/license/validate', { key: license.key });
    expectSigned(bare, read({ key: license.key }), validAnswerSchema);
  });

  it('validate: every refusal (400, 403, invalid JSON) states the request as sent', async () => {
    instant = Date.parse('2026-03-02T11:30:00.000Z');
    const expired = await t.createLicense({ expiresAt: new Date(instant - 60_000) });
    const plain = await t.createLicense({});
    const cases: Array<{ name: string; body: unknown; status: number; error: string; request: SignedRequest }> = [
      {
        name: 'fields of the wrong types',
        body: { key: 42, hwid: ['pc'], entitlements: ['A', 1], nonce: 7 },
        status: 400,
        error: 'Validation failed',
        request: none,
      },
      {
        name: 'an hwid over 200 characters, as sent',
        body: { key: ' K-1 ', hwid: 'h'.repeat(201), entitlements: ['b', 'a'], nonce: 'n-1' },
        status: 400,
        error: 'Validation failed',
        request: { key: 'K-1', hwid: 'h'.repeat(201), entitlements: ['a', 'b'], nonce: 'n-1' },
      },
      {
        name: 'an unknown key',
        body: { key: '  NO-SUCH-KEY  ', nonce: 'n-2' },
        status: 400,
        error: 'License not found',
        request: read({ key: 'NO-SUCH-KEY', nonce: 'n-2' }),
      },
      {
        name: 'an expired license',
        body: { key: expired.key, hwid: 'pc-2' },
        status: 403,
        error: 'License expired',
        request: read({ key: expired.key, hwid: 'pc-2' }),
      },
      {
        name: 'a missing entitlement, the codes sorted in code-point order',
        body: { key: plain.key, entitlements: ['ZZ', 'AA', 'Z_', 'a'], nonce: 'n-3' },
        status: 403,
        error: 'Entitlement missing',
        request: read({ key: plain.key, entitlements: ['AA', 'ZZ', 'Z_', 'a'], nonce: 'n-3' }),
      },
      { name: 'a body that is not JSON', body: '{"key": ', status: 400, error: 'Invalid JSON body', request: none },
      { name: 'a JSON array', body: '["key"]', status: 400, error: 'Validation failed', request: none },
    ];
    for (const { name, body, status, error, request } of cases) {
      const answer = await post(t, '/api/license/validate', body);
      expect([answer.status, answer.body.error], name).toEqual([status, error]);
      expectSigned(answer, request, refusedAnswerSchema);
    }
  });

  it('machines: activate (201 and 200), heartbeat and deactivate state the fingerprint as hwid', async () => {
    instant = Date.parse('2026-03-03T08:00:00.000Z');
    const license = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 60 });
    const seat = { key: license.key, fingerprint: ' fp-1 ' };
    const request = { key: license.key, hwid: 'fp-1', entitlements: null };
    const created = await post(t, '/api/license/machines/activate', { ...seat, name: 'Desk', nonce: 'a-1' });
    expect(created.status).toBe(201);
    expectSigned(created, { ...request, nonce: 'a-1' }, machineAnswer);
    const again = await post(t, '/api/license/machines/activate', seat);
    expect(again.status).toBe(200);
    expectSigned(again, { ...request, nonce: null }, machineAnswer);
    instant += 5000;
    const beat = await post(t, '/api/license/machines/heartbeat', { ...seat, nonce: 'h-1' });
    expect(beat.status).toBe(200);
    expectSigned(beat, { ...request, nonce: 'h-1' }, machineAnswer);
    const freed = await post(t, '/api/license/machines/deactivate', { ...seat, nonce: 'd-1' });
    expect(freed.status).toBe(200);
    expectSigned(freed, { ...request, nonce: 'd-1' }, seatFreedAnswer);
  });

  it('machines: every refusal (400, 403, 404, invalid JSON) states the request as sent', async () => {
    instant = Date.parse('2026-03-04T09:15:00.000Z');
    const full = await t.createLicense({ hwidLimit: 1 });
    const revoked = await t.createLicense({});
    const admin = await t.admin();
    await t.http.post(`/api/licenses/${revoked._id}/revoke`).set(admin.headers).send({}).expect(200);
    await post(t, '/api/license/machines/activate', { key: full.key, fingerprint: 'taken' });
    const cases: Array<{ path: string; body: unknown; status: number; error: string; request: SignedRequest }> = [
      {
        path: 'activate',
        body: { key: full.key, hwid: 'not-a-fingerprint', nonce: 'm-1' },
        status: 400,
        error: 'Validation failed',
        request: read({ key: full.key, nonce: 'm-1' }),
      },
      {
        path: 'heartbeat',
        body: { key: 'NO-SUCH-KEY', fingerprint: 'fp', nonce: 'm-2' },
        status: 400,
        error: 'License not found',
        request: read({ key: 'NO-SUCH-KEY', hwid: 'fp', nonce: 'm-2' }),
      },
      {
        path: 'activate',
        body: { key: full.key, fingerprint: 'second' },
        status: 403,
        error: 'HWID limit exceeded',
        request: read({ key: full.key, hwid: 'second' }),
      },
      {
        path: 'deactivate',
        body: { key: revoked.key, fingerprint: 'fp', nonce: 'm-3' },
        status: 403,
        error: 'License revoked',
        request: read({ key: revoked.key, hwid: 'fp', nonce: 'm-3' }),
      },
      {
        path: 'heartbeat',
        body: { key: full.key, fingerprint: 'never', nonce: 'm-4' },
        status: 404,
        error: 'Machine not found',
        request: read({ key: full.key, hwid: 'never', nonce: 'm-4' }),
      },
      { path: 'deactivate', body: '{"key"', status: 400, error: 'Invalid JSON body', request: none },
    ];
    for (const { path, body, status, error, request } of cases) {
      const answer = await post(t, `/api/license/machines/${path}`, body);
      expect([answer.status, answer.body.error], `${path} ${error}`).toEqual([status, error]);
      expectSigned(answer, request, signedErrorSchema);
    }
  });

  it('503 in panic mode, on validate and machines alike', async () => {
    instant = Date.parse('2026-03-05T12:00:00.000Z');
    const license = await t.createLicense({});
    const admin = await t.admin();
    await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: true }).expect(200);
    try {
      const validate = await post(t, '/api/license/validate', { key: license.key, hwid: 'pc', nonce: 'p-1' });
      expect(validate.status).toBe(503);
      expectSigned(validate, read({ key: license.key, hwid: 'pc', nonce: 'p-1' }), refusedAnswerSchema);
      for (const path of ['activate', 'heartbeat', 'deactivate']) {
        const answer = await post(t, `/api/license/machines/${path}`, { key: license.key, fingerprint: 'fp' });
        expect(answer.status, path).toBe(503);
        expectSigned(answer, read({ key: license.key, hwid: 'fp' }), signedErrorSchema);
      }
    } finally {
      await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: false }).expect(200);
    }
  });
});

describe(`signed 429 answers carry request and issuedAt (${testDatabaseBackend()})`, () => {
  let limited: TestApp;
  let limitedKey: string;
  beforeAll(async () => {
    limited = await buildTestApp({
      env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' }, // the public key, then one validation
      now: () => new Date(instant),
    });
    limitedKey = (await limited.http.get('/api/license/public-key').expect(200)).body.publicKey;
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('answers the request after the limit with 429, signed, on validate and machines', async () => {
    instant = Date.parse('2026-03-06T07:45:00.000Z');
    const license = await limited.createLicense({});
    const first = await post(limited, '/api/license/validate', { key: license.key }, limitedKey);
    expect(first.status).toBe(200);
    const validate = await post(limited, '/api/license/validate', { key: license.key, nonce: 'r-1' }, limitedKey);
    expect(validate.status).toBe(429);
    expectSigned(validate, read({ key: license.key, nonce: 'r-1' }), refusedAnswerSchema);
    const machine = await post(
      limited,
      '/api/license/machines/activate',
      { key: license.key, fingerprint: 'fp', nonce: 'r-2' },
      limitedKey,
    );
    expect(machine.status).toBe(429);
    expectSigned(machine, read({ key: license.key, hwid: 'fp', nonce: 'r-2' }), signedErrorSchema);
  });
});
