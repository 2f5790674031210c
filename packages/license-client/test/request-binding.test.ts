import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The license service as its own tests build it: a real server on a test database.
import { buildTestApp, type TestApp } from '../../../apps/license/test/helpers.js';
import {
  activateMachine,
  checkLicenseFile,
  checkSignedValidation,
  createFileClockStore,
  deactivateMachine,
  heartbeat,
  keyIdOf,
  verifyLicenseFile,
  verifySignedValidation,
  type ClockStore,
  type LicenseFilePayload,
} from '../src/index.js';

// What the client does with what a signed answer says it answers: a proxy between the
// application and the service that rewrites the key or the hardware id (and keeps the nonce)
// gets an authentic answer about another request, which the client refuses. Then the product,
// rotated keys, the clock and grace, on answers and files signed by test keys.

const scratch = mkdtempSync(path.join(os.tmpdir(), 'license-client-binding-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** A clock file of its own per use: tests do not share what they have seen of a clock. */
const freshClock = () => createFileClockStore(path.join(scratch, randomUUID(), 'latest-issued-at'));
/** Runs with HOME (where the default clock file lives) pointing elsewhere. */
async function withHome<T>(home: string, run: () => T | Promise<T>): Promise<T> {
  const before = process.env.HOME;
  process.env.HOME = home;
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.HOME;
    else process.env.HOME = before;
  }
}

/** Listens on 127.0.0.1; answers the base URL and a close function. */
async function listen(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    handler(req, res).catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const bodyOf = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
  });

describe('a proxy that rewrites the request, in front of the real service', () => {
  let t: TestApp;
  let publicKey: string;
  let proxy: { url: string; close: () => Promise<void> };
  /** What the proxy does to each request body: nothing, until a test says. */
  let rewrite: (body: Record<string, unknown>) => void = () => undefined;
  let mine: { key: string };
  let theirs: { key: string };

  beforeAll(async () => {
    t = await buildTestApp();
    publicKey = (await t.http.get('/api/license/public-key').expect(200)).body.publicKey;
    mine = await t.createLicense({ hwidLimit: 3 });
    // Another product's trial key, valid on its own: what an attacker has at hand.
    const other = await t.createProduct({ name: 'Other product' });
    theirs = await t.createLicense({ product: other._id, licenseType: 'trial', hwidLimit: 3 });
    // Forwards to the service, changing the body on the way; the answer goes back byte for byte.
    proxy = await listen(async (req, res) => {
      const body = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
      rewrite(body);
      const upstream = await fetch(`${t.baseUrl}${req.url}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'x-license-signature', 'x-license-key-id']) {
        const value = upstream.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
  });

  async function validate(base: string, request: { key: string; hwid: string }) {
    const nonce = randomUUID();
    const res = await fetch(`${base}/api/license/validate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...request, nonce }),
    });
    return {
      nonce,
      status: res.status,
      body: Buffer.from(await res.arrayBuffer()),
      signature: res.headers.get('x-license-signature'),
    };
  }

  it('verifySignedValidation: valid directly; wrong-request when the proxy swapped the key or the hwid', async () => {
    const sent = { key: mine.key, hwid: 'pc-mine' };
    const direct = await validate(t.baseUrl, sent);
    expect(
      verifySignedValidation(direct.body, direct.signature, publicKey, { nonce: direct.nonce, request: sent }),
    ).toMatchObject({ valid: true, body: { license: { key: mine.key } } });

    rewrite = (body) => {
      body.key = theirs.key;
    };
    const swapped = await validate(proxy.url, sent);
    expect(swapped.status).toBe(200);
    // Before: signature and nonce hold, so the nonce alone took another license's answer as ours.
    expect(verifySignedValidation(swapped.body, swapped.signature, publicKey, { nonce: swapped.nonce })).toMatchObject({
      valid: true,
      body: { license: { key: theirs.key } },
    });
    // Now: the answer states the key it answers.
    expect(
      verifySignedValidation(swapped.body, swapped.signature, publicKey, { nonce: swapped.nonce, request: sent }),
    ).toMatchObject({ valid: false, reason: 'wrong-request', body: { request: { key: theirs.key } } });

    rewrite = (body) => {
      body.hwid = 'pc-elsewhere';
    };
    const moved = await validate(proxy.url, sent);
    expect(moved.status).toBe(200);
    expect(
      verifySignedValidation(moved.body, moved.signature, publicKey, { nonce: moved.nonce, request: sent }),
    ).toMatchObject({ valid: false, reason: 'wrong-request', body: { request: { hwid: 'pc-elsewhere' } } });

    // A proxy that leaves the request alone changes nothing.
    rewrite = () => undefined;
    const passed = await validate(proxy.url, sent);
    expect(
      verifySignedValidation(passed.body, passed.signature, publicKey, { nonce: passed.nonce, request: sent }).valid,
    ).toBe(true);
  });

  it('activateMachine, heartbeat and deactivateMachine: ok directly; wrong-request through the rewriting proxy', async () => {
    const options = { key: mine.key, fingerprint: 'fp-mine', publicKey, clock: freshClock() };
    rewrite = (body) => {
      body.key = theirs.key;
    };
    expect(await activateMachine({ ...options, baseUrl: proxy.url })).toEqual({
      ok: false,
      reason: 'wrong-request',
      status: 201,
    });
    expect(await heartbeat({ ...options, baseUrl: proxy.url })).toMatchObject({ ok: false, reason: 'wrong-request' });
    rewrite = (body) => {
      body.fingerprint = 'fp-elsewhere';
    };
    expect(await activateMachine({ ...options, baseUrl: proxy.url })).toEqual({
      ok: false,
      reason: 'wrong-request',
      status: 201,
    });
    expect(await deactivateMachine({ ...options, baseUrl: proxy.url })).toMatchObject({
      ok: false,
      reason: 'wrong-request',
    });

    expect(await activateMachine({ ...options, baseUrl: t.baseUrl })).toMatchObject({
      ok: true,
      status: 201,
      machine: { fingerprint: 'fp-mine' },
    });
    expect(await heartbeat({ ...options, baseUrl: t.baseUrl })).toMatchObject({ ok: true, status: 200 });
    expect(await deactivateMachine({ ...options, baseUrl: t.baseUrl })).toEqual({ ok: true, status: 200 });
  });

  it("productId: the real service names the license's product, so another product's valid key is wrong-product", async () => {
    rewrite = () => undefined;
    const own = await t.createLicense({ hwidLimit: 3 });
    const sent = { key: own.key, hwid: 'pc-product' };
    const direct = await validate(t.baseUrl, sent);
    const options = { nonce: direct.nonce, request: sent };
    expect(
      verifySignedValidation(direct.body, direct.signature, publicKey, { ...options, productId: own.product._id }),
    ).toMatchObject({ valid: true, body: { license: { productId: own.product._id } } });
    expect(
      verifySignedValidation(direct.body, direct.signature, publicKey, { ...options, productId: 'another-product' }),
    ).toMatchObject({ valid: false, reason: 'wrong-product' });

    const machine = { baseUrl: t.baseUrl, key: own.key, fingerprint: 'fp-product', publicKey, clock: freshClock() };
    expect(await activateMachine({ ...machine, productId: 'another-product' })).toMatchObject({
      ok: false,
      reason: 'wrong-product',
    });
    expect(await activateMachine({ ...machine, productId: own.product._id })).toMatchObject({ ok: true });
    expect(await deactivateMachine({ ...machine, productId: own.product._id })).toEqual({ ok: true, status: 200 });
  });

  it('refuses an answer while the local clock is more than 24 h behind the service, and keeps its issuedAt', async () => {
    const clock = freshClock();
    const options = { baseUrl: t.baseUrl, key: mine.key, fingerprint: 'fp-clock', publicKey, clock };
    const twoDaysAgo = () => new Date(Date.now() - 2 * 86_400_000);
    expect(await activateMachine({ ...options, now: twoDaysAgo })).toMatchObject({
      ok: false,
      reason: 'clock-rolled-back',
    });
    const kept = clock.load();
    expect(Date.parse(kept!)).toBeGreaterThan(Date.now() - 60_000);
    expect(await activateMachine(options)).toMatchObject({ ok: true });
    expect(await deactivateMachine(options)).toMatchObject({ ok: true });
  });
});

// Answers and files signed by test keys: the service side of productId, grace and rotation
// is checked by the service's own tests.
const pair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const oldKey = pair();
const newKey = pair();
const stranger = pair();
const issuedAt = '2026-06-01T12:00:00.000Z';
const at = (iso: string) => new Date(iso);

function answer(body: Record<string, unknown>, signer = newKey) {
  const bytes = Buffer.from(JSON.stringify(body));
  return { bytes, signature: sign(null, bytes, signer.privateKey).toString('base64') };
}
const request = { key: 'KEY-1', hwid: 'pc-1', entitlements: null, nonce: 'n-1' };
const validAnswer = (license: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  success: true,
  valid: true,
  license: { key: 'KEY-1', productId: 'prod-1', expiresAt: null, entitlements: [], ...license },
  nonce: 'n-1',
  request,
  issuedAt,
  ...extra,
});
const sent = { nonce: 'n-1', request: { key: 'KEY-1', hwid: 'pc-1' }, now: at(issuedAt) };

const payload: LicenseFilePayload = {
  key: 'KEY-1',
  product: { _id: 'prod-1', name: 'Suite' },
  licenseType: 'fixed',
  expiresAt: '2026-06-10T00:00:00.000Z',
  ipLimit: 0,
  hwidLimit: 2,
  usedHwids: ['pc-1'],
  entitlements: [],
  issuedAt,
  validUntil: '2026-07-01T00:00:00.000Z',
};
function fileOf(content: object, signer: { privateKey: KeyObject; publicKeyPem: string } = newKey) {
  const bytes = Buffer.from(JSON.stringify(content));
  const kid = keyIdOf(signer.publicKeyPem);
  return {
    format: 'license-file/1',
    payload: bytes.toString('base64'),
    signature: sign(null, bytes, signer.privateKey).toString('base64'),
    keyId: kid,
    kid,
  };
}

describe('request and product', () => {
  it('compares the request: key trimmed, hwid, entitlements sorted, nonce', () => {
    const withCodes = validAnswer({}, { request: { ...request, entitlements: ['A', 'B', 'a'] } });
    const { bytes, signature } = answer(withCodes);
    const asked = { key: ' KEY-1 ', hwid: 'pc-1', entitlements: ['a', 'B', 'A'] };
    expect(verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, request: asked })).toMatchObject({
      valid: true,
    });
    for (const other of [
      { ...asked, key: 'KEY-2' },
      { ...asked, hwid: 'pc-2' },
      { ...asked, hwid: undefined },
      { ...asked, entitlements: ['A', 'B'] },
      { ...asked, entitlements: undefined },
    ]) {
      expect(verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, request: other })).toMatchObject({
        valid: false,
        reason: 'wrong-request',
      });
    }
    // An answer without `request` (not the service's current shape) answers no request given.
    const bare = answer({ success: true, valid: true, license: { key: 'KEY-1' }, nonce: 'n-1' });
    expect(verifySignedValidation(bare.bytes, bare.signature, newKey.publicKeyPem, sent)).toMatchObject({
      valid: false,
      reason: 'wrong-request',
    });
    // Without `request`, the old call shape checks what it always did.
    expect(verifySignedValidation(bare.bytes, bare.signature, newKey.publicKeyPem, { nonce: 'n-1' }).valid).toBe(true);
  });

  it('refuses a valid answer or a file of another product (wrong-product), or one that names none', () => {
    const { bytes, signature } = answer(validAnswer());
    const check = (productId: string) =>
      verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, productId });
    expect(check('prod-1')).toMatchObject({ valid: true });
    expect(check('prod-2')).toMatchObject({ valid: false, reason: 'wrong-product' });
    const nameless = answer(validAnswer({ productId: undefined }));
    expect(
      verifySignedValidation(nameless.bytes, nameless.signature, newKey.publicKeyPem, { ...sent, productId: 'prod-1' }),
    ).toMatchObject({ valid: false, reason: 'wrong-product' });
    // A refusal stays the refusal it is.
    const refused = answer({ success: false, valid: false, error: 'License expired', nonce: 'n-1', request, issuedAt });
    expect(
      verifySignedValidation(refused.bytes, refused.signature, newKey.publicKeyPem, { ...sent, productId: 'prod-2' }),
    ).toMatchObject({ valid: false, reason: 'license-invalid', error: 'License expired' });

    const file = fileOf(payload);
    const now = at('2026-06-05T00:00:00Z');
    expect(verifyLicenseFile(file, newKey.publicKeyPem, { now, productId: 'prod-1' }).valid).toBe(true);
    expect(verifyLicenseFile(file, newKey.publicKeyPem, { now, productId: 'prod-2' })).toEqual({
      valid: false,
      reason: 'wrong-product',
    });
  });

  it('machine functions refuse an answer about another product, against a service signing with a test key', async () => {
    const server = await listen(async (req, res) => {
      const { key, fingerprint, nonce } = JSON.parse(await bodyOf(req));
      const machine = {
        _id: 'm-1',
        license: 'l-1',
        fingerprint,
        name: null,
        platform: null,
        lastIp: null,
        activatedAt: issuedAt,
        lastSeenAt: issuedAt,
        leaseExpiresAt: null,
      };
      const { bytes, signature } = answer({
        success: true,
        machine,
        license: { key, productId: 'prod-1' },
        nonce,
        request: { key, hwid: fingerprint, entitlements: null, nonce },
        issuedAt,
      });
      res
        .writeHead(201, {
          'Content-Type': 'application/json',
          'X-License-Signature': signature,
          'X-License-Key-Id': keyIdOf(newKey.publicKeyPem),
        })
        .end(bytes);
    });
    try {
      const options = {
        baseUrl: server.url,
        key: 'KEY-1',
        fingerprint: 'fp-1',
        publicKey: [oldKey.publicKeyPem, newKey.publicKeyPem],
        now: () => at(issuedAt),
        clock: false as const,
      };
      expect(await activateMachine({ ...options, productId: 'prod-1' })).toMatchObject({ ok: true, status: 201 });
      expect(await activateMachine(options)).toMatchObject({ ok: true });
      expect(await activateMachine({ ...options, productId: 'prod-2' })).toEqual({
        ok: false,
        reason: 'wrong-product',
        status: 201,
      });
      // The header names the new key: a client holding only the old one knows no key of that id.
      expect(await activateMachine({ ...options, publicKey: oldKey.publicKeyPem })).toEqual({
        ok: false,
        reason: 'unknown-key',
        status: 201,
      });
    } finally {
      await server.close();
    }
  });
});

describe('a rotated service: a list of keys', () => {
  const keys = [newKey.publicKeyPem, oldKey.publicKeyPem];

  it('verifies answers signed by the old key or the new one; unknown-key for a key id it does not hold', () => {
    for (const signer of [oldKey, newKey]) {
      const { bytes, signature } = answer(validAnswer(), signer);
      expect(verifySignedValidation(bytes, signature, keys, sent)).toMatchObject({ valid: true });
      expect(
        verifySignedValidation(bytes, signature, keys, { ...sent, keyId: keyIdOf(signer.publicKeyPem) }),
      ).toMatchObject({ valid: true });
    }
    const { bytes, signature } = answer(validAnswer(), oldKey);
    expect(verifySignedValidation(bytes, signature, [newKey.publicKeyPem], sent)).toMatchObject({
      valid: false,
      reason: 'bad-signature',
    });
    expect(
      verifySignedValidation(bytes, signature, keys, { ...sent, keyId: keyIdOf(stranger.publicKeyPem) }),
    ).toMatchObject({ valid: false, reason: 'unknown-key' });
    const forged = answer(validAnswer(), stranger);
    expect(verifySignedValidation(forged.bytes, forged.signature, keys, sent)).toMatchObject({
      valid: false,
      reason: 'bad-signature',
    });
  });

  it("picks a file's key by its kid (or keyId, in older files); unknown-key when none holds it", () => {
    const now = at('2026-06-05T00:00:00Z');
    const byOld = fileOf(payload, oldKey);
    expect(verifyLicenseFile(byOld, keys, { now })).toMatchObject({ valid: true });
    const { kid: _kid, ...older } = byOld;
    expect(verifyLicenseFile(older, keys, { now })).toMatchObject({ valid: true });
    expect(verifyLicenseFile(byOld, [newKey.publicKeyPem], { now })).toEqual({ valid: false, reason: 'unknown-key' });
    const claimed = { ...fileOf(payload, stranger), kid: byOld.kid, keyId: byOld.kid };
    expect(verifyLicenseFile(claimed, keys, { now })).toEqual({ valid: false, reason: 'bad-signature' });
    expect(verifyLicenseFile({ ...byOld, keyId: keyIdOf(newKey.publicKeyPem) }, keys, { now })).toEqual({
      valid: false,
      reason: 'malformed',
    });
  });
});

describe('grace and expiry', () => {
  it('a file within its grace days is valid and inGrace; past graceEndsAt it is expired', () => {
    const grace = fileOf({ ...payload, graceEndsAt: '2026-06-20T00:00:00.000Z' });
    expect(verifyLicenseFile(grace, newKey.publicKeyPem, { now: at('2026-06-15T00:00:00Z') })).toMatchObject({
      valid: true,
      inGrace: true,
      expired: false,
      license: { graceEndsAt: '2026-06-20T00:00:00.000Z' },
    });
    // Before expiresAt the grace has not begun.
    expect(verifyLicenseFile(grace, newKey.publicKeyPem, { now: at('2026-06-05T00:00:00Z') })).toMatchObject({
      valid: true,
      inGrace: false,
    });
    expect(verifyLicenseFile(grace, newKey.publicKeyPem, { now: at('2026-06-20T00:00:00Z') })).toEqual({
      valid: false,
      reason: 'expired',
    });
  });

  it('a file of a maintained license past its expiry is valid and expired', () => {
    const maintained = fileOf({ ...payload, expiresAt: '2026-05-01T00:00:00.000Z', expired: true });
    expect(verifyLicenseFile(maintained, newKey.publicKeyPem, { now: at('2026-06-05T00:00:00Z') })).toMatchObject({
      valid: true,
      inGrace: false,
      expired: true,
      license: { expired: true },
    });
  });

  it('answers carry inGrace and expired from license.graceEndsAt and license.expired', () => {
    const inGrace = answer(validAnswer({ expiresAt: '2026-05-30T00:00:00.000Z', graceEndsAt: '2026-06-06T00:00:00Z' }));
    expect(verifySignedValidation(inGrace.bytes, inGrace.signature, newKey.publicKeyPem, sent)).toMatchObject({
      valid: true,
      inGrace: true,
      expired: false,
    });
    const expired = answer(validAnswer({ expiresAt: '2026-05-01T00:00:00.000Z', expired: true }));
    expect(verifySignedValidation(expired.bytes, expired.signature, newKey.publicKeyPem, sent)).toMatchObject({
      valid: true,
      inGrace: false,
      expired: true,
    });
  });
});

describe('clock rollback', () => {
  const hour = 3_600_000;
  const later = (hours: number) => new Date(Date.parse(issuedAt) + hours * hour);

  it('keeps the latest issuedAt verified in its file, and refuses answers while the clock is over 24 h behind it', () => {
    const file = path.join(scratch, 'sync', 'latest-issued-at');
    const clock = createFileClockStore(file);
    const { bytes, signature } = answer(validAnswer());
    expect(verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, clock }).valid).toBe(true);
    expect(readFileSync(file, 'utf8').trim()).toBe(issuedAt);
    // A newer answer moves the mark forward.
    const fresh = answer(validAnswer({}, { issuedAt: later(48).toISOString() }));
    expect(
      verifySignedValidation(fresh.bytes, fresh.signature, newKey.publicKeyPem, { ...sent, now: later(48), clock }),
    ).toMatchObject({ valid: true });
    expect(clock.load()).toBe(later(48).toISOString());
    // The clock turned back to replay the first answer: 48 h behind the mark.
    expect(verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, clock })).toMatchObject({
      valid: false,
      reason: 'clock-rolled-back',
    });
    expect(
      verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, now: later(25), clock }),
    ).toMatchObject({ valid: true });
    expect(clock.load()).toBe(later(48).toISOString()); // never moves back
    // A forged answer teaches the clock nothing.
    const forged = answer(validAnswer({}, { issuedAt: later(1000).toISOString() }), stranger);
    verifySignedValidation(forged.bytes, forged.signature, newKey.publicKeyPem, { ...sent, clock });
    expect(clock.load()).toBe(later(48).toISOString());
  });

  it('refuses a file the same way, and an answer whose own issuedAt is over 24 h ahead of the clock', () => {
    const clock = freshClock();
    const file = fileOf({ ...payload, issuedAt: later(72).toISOString() });
    // Exactly 24 h behind is within the tolerance; a moment more is not.
    expect(verifyLicenseFile(file, newKey.publicKeyPem, { now: later(48), clock })).toMatchObject({ valid: true });
    expect(verifyLicenseFile(file, newKey.publicKeyPem, { now: new Date(later(48).getTime() - 1), clock })).toEqual({
      valid: false,
      reason: 'clock-rolled-back',
    });
    expect(verifyLicenseFile(file, newKey.publicKeyPem, { now: later(72), clock })).toMatchObject({ valid: true });
    expect(verifyLicenseFile(fileOf(payload), newKey.publicKeyPem, { now: later(47), clock })).toEqual({
      valid: false,
      reason: 'clock-rolled-back',
    });
    const { bytes, signature } = answer(validAnswer({}, { issuedAt: later(30).toISOString() }));
    expect(
      verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, now: later(5), clock: freshClock() }),
    ).toMatchObject({ valid: false, reason: 'clock-rolled-back' });
  });

  it('the async checks keep the date in ~/.license-client/latest-issued-at by default, or in any store', async () => {
    const home = mkdtempSync(path.join(scratch, 'home-'));
    await withHome(home, async () => {
      const { bytes, signature } = answer(validAnswer({}, { issuedAt: later(48).toISOString() }));
      expect(
        await checkSignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, now: later(48) }),
      ).toMatchObject({ valid: true });
      const kept = path.join(home, '.license-client', 'latest-issued-at');
      expect(readFileSync(kept, 'utf8').trim()).toBe(later(48).toISOString());
      expect(await checkLicenseFile(fileOf(payload), newKey.publicKeyPem, { now: at(issuedAt) })).toEqual({
        valid: false,
        reason: 'clock-rolled-back',
      });
      expect(
        await checkLicenseFile(fileOf(payload), newKey.publicKeyPem, { now: at(issuedAt), clock: false }),
      ).toMatchObject({ valid: true });
    });

    let saved: string | undefined = later(100).toISOString();
    const remote: ClockStore = {
      load: () => Promise.resolve(saved),
      save: (iso) => {
        saved = iso;
        return Promise.resolve();
      },
    };
    const { bytes, signature } = answer(validAnswer());
    expect(
      await checkSignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, clock: remote }),
    ).toMatchObject({
      valid: false,
      reason: 'clock-rolled-back',
    });
    expect(() => verifySignedValidation(bytes, signature, newKey.publicKeyPem, { ...sent, clock: remote })).toThrow(
      /checkLicenseFile or checkSignedValidation/,
    );
    // Without a store, the synchronous checks keep no date (as before clocks were checked).
    const outside = mkdtempSync(path.join(scratch, 'home-'));
    await withHome(outside, () => verifySignedValidation(bytes, signature, newKey.publicKeyPem, sent));
    expect(existsSync(path.join(outside, '.license-client'))).toBe(false);
  });
});
