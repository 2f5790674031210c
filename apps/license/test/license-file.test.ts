import { createHash, createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const day = 86_400_000;
let t: TestApp;
let alice: Session;
let aliceId: string;
let bobLicenseId: string;
let admin: Session;
let key: { publicKey: string; keyId: string; publicKeyBase64: string };

beforeAll(async () => {
  t = await buildTestApp();
  const signedIn = await t.customer();
  alice = signedIn.session;
  aliceId = signedIn.customer._id;
  bobLicenseId = (await t.createLicense({ customer: (await t.createCustomer())._id }))._id;
  admin = await t.admin();
  key = (await t.http.get('/api/license/public-key')).body;
});
afterAll(async () => {
  await t?.close();
});

/** Checks the file's signature the way the README tells applications to. */
const signatureHolds = (file: { payload: string; signature: string }) =>
  verify(
    null,
    Buffer.from(file.payload, 'base64'),
    createPublicKey(key.publicKey),
    Buffer.from(file.signature, 'base64'),
  );
const payloadOf = (file: { payload: string }) => JSON.parse(Buffer.from(file.payload, 'base64').toString('utf8'));

describe('offline license files', () => {
  it('GET /api/customer/licenses/:licenseId/file answers a signed license-file/1 download', async () => {
    const license = await t.createLicense({ customer: aliceId, licenseType: 'fixed', ipLimit: 3, hwidLimit: 2 });
    await t.http.post('/api/license/validate').send({ key: license.key, ip: '10.70.0.1', hwid: 'pc-1' }).expect(200);
    const before = Date.now();
    const res = await t.http.get(`/api/customer/licenses/${license._id}/file`).set('Cookie', alice.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${license.key}.lic.json"`);
    expect(Object.keys(res.body).sort()).toEqual(['format', 'keyId', 'kid', 'payload', 'signature']);
    expect(res.body.format).toBe('license-file/1');
    expect(res.body.keyId).toBe(key.keyId);
    expect(res.body.kid).toBe(key.keyId);
    expect(key.keyId).toBe(
      createHash('sha256').update(Buffer.from(key.publicKeyBase64, 'base64')).digest('hex').slice(0, 16),
    );
    expect(signatureHolds(res.body)).toBe(true);

    const payload = payloadOf(res.body);
    expect(payload).toEqual({
      key: license.key,
      product: { _id: license.product._id, name: license.product.name },
      licenseType: 'fixed',
      expiresAt: null,
      ipLimit: 3,
      hwidLimit: 2,
      usedHwids: ['pc-1'],
      entitlements: [],
      issuedAt: expect.any(String),
      validUntil: expect.any(String),
    });
    // Without an expiry: OFFLINE_FILE_DAYS (30) from now.
    expect(t.config.OFFLINE_FILE_DAYS).toBe(30);
    const issuedAt = Date.parse(payload.issuedAt);
    expect(issuedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(payload.validUntil) - issuedAt).toBe(30 * day);
  });

  it('fails the signature when one byte of the payload or the signature changes', async () => {
    const license = await t.createLicense({ customer: aliceId });
    const { body: file } = await t.http
      .get(`/api/customer/licenses/${license._id}/file`)
      .set('Cookie', alice.cookie)
      .expect(200);
    for (let index = 0; index < Buffer.from(file.payload, 'base64').length; index += 17) {
      const bytes = Buffer.from(file.payload, 'base64');
      bytes[index] = bytes[index]! ^ 0x01;
      expect(signatureHolds({ ...file, payload: bytes.toString('base64') }), `byte ${index}`).toBe(false);
    }
    const signature = Buffer.from(file.signature, 'base64');
    signature[5] = signature[5]! ^ 0x80;
    expect(signatureHolds({ ...file, signature: signature.toString('base64') })).toBe(false);
  });

  it('never makes validUntil later than expiresAt', async () => {
    const expiresAt = new Date(Date.now() + 5 * day);
    const license = await t.createLicense({ customer: aliceId, expiresAt });
    const { body: file } = await t.http
      .get(`/api/customer/licenses/${license._id}/file`)
      .set('Cookie', alice.cookie)
      .expect(200);
    const payload = payloadOf(file);
    expect(payload.expiresAt).toBe(expiresAt.toISOString());
    expect(payload.validUntil).toBe(expiresAt.toISOString());
    const far = await t.createLicense({ customer: aliceId, expiresAt: new Date(Date.now() + 400 * day) });
    const farPayload = payloadOf(
      (await t.http.get(`/api/customer/licenses/${far._id}/file`).set('Cookie', alice.cookie).expect(200)).body,
    );
    expect(Date.parse(farPayload.validUntil)).toBeLessThanOrEqual(Date.parse(farPayload.expiresAt));
    expect(Date.parse(farPayload.validUntil) - Date.parse(farPayload.issuedAt)).toBe(30 * day);
  });

  it("answers 404 License not found for another customer's license or an unknown one", async () => {
    for (const id of [bobLicenseId, '00000000-0000-0000-0000-000000000000', 'garbage']) {
      const res = await t.http.get(`/api/customer/licenses/${id}/file`).set('Cookie', alice.cookie);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'License not found' });
      expect(res.headers['content-disposition']).toBeUndefined();
    }
    expect((await t.http.get(`/api/customer/licenses/${bobLicenseId}/file`)).status).toBe(401);
  });

  it('GET /api/licenses/:id/file gives admins the same file for any license, behind the admin guard', async () => {
    const res = await t.http.get(`/api/licenses/${bobLicenseId}/file`).set('Cookie', admin.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[A-Za-z0-9._-]+\.lic\.json"$/);
    expect(res.body).toMatchObject({ format: 'license-file/1', keyId: key.keyId });
    expect(signatureHolds(res.body)).toBe(true);
    expect(payloadOf(res.body)._id).toBeUndefined();
    expect((await t.http.get(`/api/licenses/${bobLicenseId}/file`)).status).toBe(401);
    expect((await t.http.get(`/api/licenses/${bobLicenseId}/file`).set('Cookie', alice.cookie)).status).toBe(403);
    const missing = await t.http
      .get('/api/licenses/00000000-0000-0000-0000-000000000000/file')
      .set('Cookie', admin.cookie);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'License not found' });
  });

  it('gives no file for a license that would not validate now (revoked, suspended, expired)', async () => {
    const revoked = await t.createLicense({ customer: aliceId });
    await t.http.post(`/api/licenses/${revoked._id}/revoke`).set(admin.headers).send({}).expect(200);
    const suspended = await t.createLicense({ customer: aliceId });
    await t.http.post(`/api/licenses/${suspended._id}/suspend`).set(admin.headers).send({}).expect(200);
    const expired = await t.createLicense({ customer: aliceId, expiresAt: new Date(Date.now() - day) });
    for (const [license, error] of [
      [revoked, 'License revoked'],
      [suspended, 'License suspended'],
      [expired, 'License expired'],
    ] as const) {
      const res = await t.http.get(`/api/customer/licenses/${license._id}/file`).set('Cookie', alice.cookie);
      expect(res.status, error).toBe(403);
      expect(res.body).toEqual({ success: false, error });
    }
  });

  it('answers the suspend reason beside License suspended, to the admin and the customer', async () => {
    const suspended = await t.createLicense({ customer: aliceId });
    await t.http
      .post(`/api/licenses/${suspended._id}/suspend`)
      .set(admin.headers)
      .send({ reason: 'Card declined' })
      .expect(200);
    for (const [path, cookie] of [
      [`/api/customer/licenses/${suspended._id}/file`, alice.cookie],
      [`/api/licenses/${suspended._id}/file`, admin.cookie],
    ]) {
      const res = await t.http.get(path!).set('Cookie', cookie!);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: 'License suspended', reason: 'Card declined' });
    }
  });
});
