import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The license service as its own tests build it: a real server on a test database.
import { buildTestApp, type TestApp } from '../../../apps/license/test/helpers.js';
import { verifyLicenseFile, verifySignedValidation } from '../src/index.js';

let t: TestApp;
let publicKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  const keyAnswer = await t.http.get('/api/license/public-key');
  expect(keyAnswer.status).toBe(200);
  publicKey = keyAnswer.body.publicKey;
});
afterAll(async () => {
  await t?.close();
});

describe('against the license service over HTTP', () => {
  it('verifies a file from GET /api/licenses/:id/file with the published key, and not with one byte changed', async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: 'machine-1' }).expect(200);
    const admin = await t.admin();
    const res = await t.http.get(`/api/licenses/${license._id}/file`).set('Cookie', admin.cookie);
    expect(res.status).toBe(200);
    const result = verifyLicenseFile(res.text, publicKey, { hwid: 'machine-1' });
    expect(result).toMatchObject({ valid: true, license: { key: license.key, usedHwids: ['machine-1'] } });

    const bytes = Buffer.from(res.body.payload, 'base64');
    bytes[10] = bytes[10]! ^ 1;
    expect(verifyLicenseFile({ ...res.body, payload: bytes.toString('base64') }, publicKey)).toEqual({
      valid: false,
      reason: 'bad-signature',
    });
  });

  it('binds a file to a machine holding a seat (?fingerprint=): good on that machine only; 404 Machine not found for one without a seat', async () => {
    const { customer, session } = await t.customer();
    // Floating seats lend their seat to a bound file for borrowHours (decisions, wave 4).
    const license = await t.createLicense({
      customer: customer._id,
      hwidLimit: 2,
      heartbeatSeconds: 60,
      borrowHours: 24,
    });
    await t.http.post('/api/license/machines/activate').send({ key: license.key, fingerprint: 'fp-bound' }).expect(201);
    await t.http.post('/api/license/machines/activate').send({ key: license.key, fingerprint: 'fp-other' }).expect(201);
    const admin = await t.admin();
    for (const [path, cookie] of [
      [`/api/licenses/${license._id}/file`, admin.cookie],
      [`/api/customer/licenses/${license._id}/file`, session.cookie],
    ] as const) {
      const bound = await t.http.get(`${path}?fingerprint=fp-bound`).set('Cookie', cookie).expect(200);
      const result = verifyLicenseFile(bound.text, publicKey, { hwid: 'fp-bound' });
      expect(result, path).toMatchObject({ valid: true, license: { key: license.key, fingerprint: 'fp-bound' } });
      expect(verifyLicenseFile(bound.text, publicKey, { hwid: 'fp-other' }), path).toEqual({
        valid: false,
        reason: 'wrong-machine',
      });
      expect(verifyLicenseFile(bound.text, publicKey), path).toEqual({ valid: false, reason: 'wrong-machine' });
      expect(result, path).toMatchObject({ license: { usedHwids: ['fp-bound', 'fp-other'] } });
      // A floating license gives no unbound file: it would hold no seat.
      await t.http.get(path).set('Cookie', cookie).expect(400);
      const none = await t.http.get(`${path}?fingerprint=fp-never`).set('Cookie', cookie);
      expect([none.status, none.body.error], path).toEqual([404, 'Machine not found']);
    }
    // A floating seat whose lease ran out holds no seat, even before the sweep removes it.
    await t.database.pool.query(
      `UPDATE machines SET lease_expires_at = now() - interval '1 second' WHERE fingerprint = 'fp-other'`,
    );
    const lapsed = await t.http
      .get(`/api/licenses/${license._id}/file?fingerprint=fp-other`)
      .set('Cookie', admin.cookie);
    expect([lapsed.status, lapsed.body.error]).toEqual([404, 'Machine not found']);
    // The license's state comes first, as validation answers it.
    await t.http.post(`/api/licenses/${license._id}/revoke`).set(admin.headers).send({}).expect(200);
    const revoked = await t.http
      .get(`/api/licenses/${license._id}/file?fingerprint=fp-never`)
      .set('Cookie', admin.cookie);
    expect([revoked.status, revoked.body.error]).toEqual([403, 'License revoked']);
  });

  it('verifies signed validation answers as received, with their nonce', async () => {
    const license = await t.createLicense();
    const ok = await t.http
      .post('/api/license/validate')
      .send({ key: license.key, nonce: 'nonce-1' })
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(ok.status).toBe(200);
    const raw: Buffer = ok.body;
    expect(
      verifySignedValidation(raw, ok.headers['x-license-signature'], publicKey, { nonce: 'nonce-1' }),
    ).toMatchObject({ valid: true, body: { license: { key: license.key } } });
    expect(verifySignedValidation(raw, ok.headers['x-license-signature'], publicKey, { nonce: 'other' })).toMatchObject(
      { valid: false, reason: 'nonce-mismatch' },
    );

    const refused = await t.http.post('/api/license/validate').send({ key: 'NO-SUCH-KEY' });
    expect(verifySignedValidation(refused.text, refused.headers['x-license-signature'], publicKey)).toMatchObject({
      valid: false,
      reason: 'license-invalid',
      error: 'License not found',
    });
  });
});
