import { AsyncLocalStorage } from 'node:async_hooks';
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import http from 'node:http';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519Signer, verifyResponse } from '../src/signing/signing.js';
import { buildTestApp, systemActor, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const validate = (body: Record<string, unknown>) => t.http.post('/api/license/validate').send(body);
/** What every signed answer adds: the request as the service read it, and its clock. */
const answered = (request: { key?: string; hwid?: string; nonce?: string } = {}) => ({
  request: { key: null, hwid: null, entitlements: null, nonce: null, ...request },
  issuedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
});
const day = 86_400_000;

async function usageOf(licenseId: string | null) {
  const { rows } = await t.database.pool.query<{
    status: string;
    reason: string | null;
    ip: string;
    hwid: string | null;
  }>('SELECT status, reason, ip, hwid FROM usage_records WHERE license_id IS NOT DISTINCT FROM $1 ORDER BY id', [
    licenseId,
  ]);
  return rows;
}

describe('POST /api/license/validate', () => {
  it('answers a valid license with the spec fields and records a success', async () => {
    const license = await t.createLicense({ ipLimit: 2, hwidLimit: 1, expiresAt: new Date(Date.now() + 30 * day) });
    const res = await validate({ key: license.key, ip: '10.0.0.1', hwid: 'machine-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      valid: true,
      license: {
        key: license.key,
        // Wave 4: the product it belongs to, for the client to compare.
        productId: license.product._id,
        active: true,
        expiresAt: license.expiresAt,
        ipLimit: 2,
        hwidLimit: 1,
        usedIps: ['10.0.0.1'],
        usedHwids: ['machine-1'],
        licenseType: 'fixed',
        // Policies and entitlements (wave 3): none here.
        entitlements: [],
        policy: null,
      },
      ...answered({ key: license.key, hwid: 'machine-1' }),
    });
    expect(await usageOf(license._id)).toEqual([
      { status: 'success', reason: null, ip: '10.0.0.1', hwid: 'machine-1' },
    ]);
    // A known IP and hardware id validate again without using more of the limit.
    const again = await validate({ key: license.key, ip: '10.0.0.1', hwid: 'machine-1' });
    expect(again.body.license.usedIps).toEqual(['10.0.0.1']);
  });

  it('uses the caller address when no ip is given', async () => {
    const license = await t.createLicense({});
    const res = await validate({ key: license.key });
    expect(res.status).toBe(200);
    expect(res.body.license.usedIps).toEqual(['127.0.0.1']);
  });

  it('answers 400 License not found for an unknown key, and keys are case-sensitive', async () => {
    const license = await t.createLicense({});
    for (const key of ['TEST-doesnotexist', license.key.toLowerCase(), license.key.toUpperCase()]) {
      const res = await validate({ key, ip: '10.0.0.9' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, valid: false, error: 'License not found', ...answered({ key }) });
    }
    const unknown = await usageOf(null);
    expect(unknown.at(-1)).toMatchObject({ status: 'invalid', reason: 'License not found' });
  });

  it('answers 400 Validation failed for a missing or malformed key', async () => {
    for (const body of [
      {},
      { key: '' },
      { key: 42 },
      { key: 'A-B', ip: 'not an ip' },
      { key: 'A-B', hwid: 'nul\u0000byte' },
    ]) {
      const res = await validate(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, valid: false, error: 'Validation failed' });
      expect(typeof res.body.details).toBe('object');
    }
  });

  type Case = { name: string; setup: () => Promise<{ key: string; id: string }>; error: string; status: string };
  const cases: Case[] = [
    {
      name: 'revoked',
      error: 'License revoked',
      status: 'invalid',
      setup: async () => {
        const l = await t.createLicense({});
        await t.context.services.licenses.revoke(systemActor, l._id, 'fraud');
        return { key: l.key, id: l._id };
      },
    },
    {
      name: 'suspended without a reason',
      error: 'License suspended',
      status: 'invalid',
      setup: async () => {
        const l = await t.createLicense({});
        await t.context.services.licenses.suspend(systemActor, l._id, undefined);
        return { key: l.key, id: l._id };
      },
    },
    {
      name: 'not active',
      error: 'License not active',
      status: 'invalid',
      setup: async () => {
        const l = await t.createLicense({ active: false });
        return { key: l.key, id: l._id };
      },
    },
    {
      name: 'expired',
      error: 'License expired',
      status: 'invalid',
      setup: async () => {
        const l = await t.createLicense({ expiresAt: new Date(Date.now() - day) });
        return { key: l.key, id: l._id };
      },
    },
    {
      name: 'child of an expired master',
      error: 'License expired',
      status: 'invalid',
      setup: async () => {
        const master = await t.createLicense({ expiresAt: new Date(Date.now() - day) });
        const child = await t.createLicense({ parent: master._id });
        return { key: child.key, id: child._id };
      },
    },
    {
      name: 'consumption without credits',
      error: 'No credits remaining',
      status: 'invalid',
      setup: async () => {
        const l = await t.createLicense({ licenseType: 'consumption', credits: 0 });
        return { key: l.key, id: l._id };
      },
    },
    {
      name: 'a new IP beyond the IP limit',
      error: 'IP limit exceeded',
      status: 'blocked',
      setup: async () => {
        const l = await t.createLicense({ ipLimit: 1 });
        await validate({ key: l.key, ip: '10.1.0.1' });
        return { key: l.key, id: l._id };
      },
    },
    {
      name: 'a new hardware id beyond the HWID limit',
      error: 'HWID limit exceeded',
      status: 'blocked',
      setup: async () => {
        const l = await t.createLicense({ hwidLimit: 1 });
        await validate({ key: l.key, ip: '10.2.0.2', hwid: 'first' });
        return { key: l.key, id: l._id };
      },
    },
  ];

  it.each(cases)(
    'answers 403 "$error" for a license that is $name and records it as $status',
    async ({ setup, error, status }) => {
      const { key, id } = await setup();
      const res = await validate({ key, ip: '10.2.0.2', hwid: 'second' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, valid: false, error, ...answered({ key, hwid: 'second' }) });
      expect((await usageOf(id)).at(-1)).toMatchObject({ status, reason: error });
    },
  );

  it('checks in the order a user expects: revoked before suspended before expired before limits', async () => {
    const l = await t.createLicense({ ipLimit: 1, expiresAt: new Date(Date.now() - day) });
    await t.context.services.licenses.suspend(systemActor, l._id, 'x');
    expect((await validate({ key: l.key, ip: '10.3.0.1' })).body.error).toBe('License suspended');
    await t.context.services.licenses.revoke(systemActor, l._id, 'x');
    expect((await validate({ key: l.key, ip: '10.3.0.1' })).body.error).toBe('License revoked');
  });

  it('answers the admin\'s suspend reason as `reason` beside "License suspended", signed, also for a child of a suspended master', async () => {
    const l = await t.createLicense({});
    await t.context.services.licenses.suspend(systemActor, l._id, 'Invoice 2024-117 is unpaid');
    const res = await validate({ key: l.key, ip: '10.3.1.1', nonce: 'n-1' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      valid: false,
      error: 'License suspended',
      reason: 'Invoice 2024-117 is unpaid',
      nonce: 'n-1',
      ...answered({ key: l.key, nonce: 'n-1' }),
    });
    const { publicKey } = (await t.http.get('/api/license/public-key')).body;
    expect(verifyResponse(publicKey, res.text, String(res.headers['x-license-signature']))).toBe(true);

    const master = await t.createLicense({});
    const child = await t.createLicense({ parent: master._id });
    await t.context.services.licenses.suspend(systemActor, master._id, 'Reseller contract paused');
    expect((await validate({ key: child.key, ip: '10.3.1.2' })).body).toEqual({
      success: false,
      valid: false,
      error: 'License suspended',
      reason: 'Reseller contract paused',
      ...answered({ key: child.key }),
    });
    // Blank reasons are no reason; other refusals never carry one.
    const blank = await t.createLicense({});
    await t.context.services.licenses.suspend(systemActor, blank._id, '  ');
    expect((await validate({ key: blank.key, ip: '10.3.1.3' })).body).toEqual({
      success: false,
      valid: false,
      error: 'License suspended',
      ...answered({ key: blank.key }),
    });
    await t.context.services.licenses.revoke(systemActor, l._id, 'fraud');
    expect((await validate({ key: l.key, ip: '10.3.1.1' })).body).toEqual({
      success: false,
      valid: false,
      error: 'License revoked',
      ...answered({ key: l.key }),
    });
  });

  it('validates a child while its master is valid', async () => {
    const master = await t.createLicense({});
    const child = await t.createLicense({ parent: master._id });
    expect((await validate({ key: child.key, ip: '10.4.0.1' })).status).toBe(200);
    await t.context.services.licenses.suspend(systemActor, master._id, 'x');
    expect((await validate({ key: child.key, ip: '10.4.0.1' })).body.error).toBe('License suspended');
    await t.context.services.licenses.revoke(systemActor, master._id, 'x');
    expect((await validate({ key: child.key, ip: '10.4.0.1' })).body.error).toBe('License revoked');
  });

  it('uses one credit per successful validation of a consumption license', async () => {
    const l = await t.createLicense({ licenseType: 'consumption', credits: 2 });
    const first = await validate({ key: l.key, ip: '10.5.0.1' });
    expect(first.body.license.credits).toEqual({ total: 2, used: 1, remaining: 1 });
    await validate({ key: l.key, ip: '10.5.0.1' });
    const third = await validate({ key: l.key, ip: '10.5.0.1' });
    expect(third.status).toBe(403);
    expect(third.body.error).toBe('No credits remaining');
  });

  it('treats a limit of 0 as unlimited', async () => {
    const l = await t.createLicense({ ipLimit: 0, hwidLimit: 0 });
    for (let i = 0; i < 12; i++)
      expect((await validate({ key: l.key, ip: `10.6.0.${i}`, hwid: `hw-${i}` })).status).toBe(200);
  });

  it('emits NEW_REQUEST_BLOCKED with the running count of blocked validations', async () => {
    const seen: Record<string, unknown>[] = [];
    t.context.events.on('NEW_REQUEST_BLOCKED', (data) => {
      seen.push(data);
    });
    const l = await t.createLicense({ ipLimit: 1 });
    await validate({ key: l.key, ip: '10.7.0.1' });
    await validate({ key: l.key, ip: '10.7.0.2' });
    await validate({ key: l.key, ip: '10.7.0.3', hwid: 'h' });
    const mine = seen.filter((data) => data.licenseId === l._id);
    expect(mine).toEqual([
      { licenseKey: l.key, licenseId: l._id, reason: 'IP limit exceeded', ip: '10.7.0.2', hwid: null, blockedCount: 1 },
      { licenseKey: l.key, licenseId: l._id, reason: 'IP limit exceeded', ip: '10.7.0.3', hwid: 'h', blockedCount: 2 },
    ]);
  });
});

describe('signed responses', () => {
  it('signs every validate answer with the published Ed25519 key; one changed byte fails the check', async () => {
    const keyRes = await t.http.get('/api/license/public-key');
    expect(keyRes.status).toBe(200);
    const { publicKey, publicKeyBase64, algorithm } = keyRes.body;
    expect(algorithm).toBe('Ed25519');
    expect(publicKey).toContain('BEGIN PUBLIC KEY');
    expect(Buffer.from(publicKeyBase64, 'base64')).toHaveLength(32);

    const l = await t.createLicense({});
    for (const body of [
      { key: l.key, ip: '10.8.0.1', nonce: 'n-123' },
      { key: 'TEST-unknown', nonce: 'n-456' },
    ]) {
      const res = await validate(body)
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        });
      const raw = res.body as Buffer;
      const signature = String(res.headers['x-license-signature']);
      expect(signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(JSON.parse(raw.toString()).nonce).toBe(body.nonce);
      expect(verifyResponse(publicKey, raw, signature)).toBe(true);
      const tampered = Buffer.from(raw);
      tampered[tampered.length - 3]! ^= 1;
      expect(verifyResponse(publicKey, tampered, signature)).toBe(false);
    }
  });

  it('signs with libsodium, byte for byte what node:crypto gives for the same key and body', async () => {
    const sodium = await import('sodium-native');
    expect(typeof sodium.default.crypto_sign_detached).toBe('function');
    const { privateKey } = generateKeyPairSync('ed25519');
    const samePem = createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const signBytes = await ed25519Signer(samePem);
    for (const body of ['{}', '{"success":true,"valid":true,"nonce":"é"}', 'x'.repeat(20_000)].map((text) =>
      Buffer.from(text),
    )) {
      expect(signBytes(body).equals(sign(null, body, privateKey))).toBe(true);
    }
  });

  it('keeps the same key across restarts of the app on the same database', async () => {
    const first = (await t.http.get('/api/license/public-key')).body.publicKey;
    const second = await buildTestApp({ database: t.database });
    try {
      expect((await second.http.get('/api/license/public-key')).body.publicKey).toBe(first);
    } finally {
      await second.close();
    }
  });
});

describe('malformed requests', () => {
  it('answers a body that is not JSON with a signed 400', async () => {
    const res = await t.http.post('/api/license/validate').set('Content-Type', 'application/json').send('{"key": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, valid: false, error: 'Invalid JSON body', ...answered() });
    expect(res.headers['x-license-signature']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('database round trips', () => {
  it('answers a validation with one query, on the common path and when a new IP is added', async () => {
    const l = await t.createLicense({ ipLimit: 5, licenseType: 'consumption', credits: 10 });
    // Only queries made on behalf of a request count: the app is served here inside an async
    // context, so the background workers' queries (settings poll, job queue, webhook deliveries)
    // cannot be mistaken for the request's, whatever they are.
    const inRequest = new AsyncLocalStorage<true>();
    const server = http.createServer((req, res) => inRequest.run(true, () => t.app(req, res)));
    const pool = t.database.pool;
    const original = pool.query.bind(pool);
    const textOf = (query: unknown) =>
      typeof query === 'string' ? query : ((query as { text?: string } | undefined)?.text ?? '');
    let queries: string[] = [];
    pool.query = ((...args: Parameters<typeof pool.query>) => {
      if (inRequest.getStore()) queries.push(textOf(args[0]));
      return original(...args);
    }) as typeof pool.query;
    try {
      for (const ip of ['10.50.0.1', '10.50.0.1', '10.50.0.2']) {
        queries = [];
        expect((await supertest(server).post('/api/license/validate').send({ key: l.key, ip, hwid: 'h' })).status).toBe(
          200,
        );
        expect(queries).toEqual([expect.stringContaining('license_validate_batch')]);
      }
    } finally {
      pool.query = original;
    }
  });
});
