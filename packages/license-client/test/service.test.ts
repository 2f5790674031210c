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
afterAll(async () => { await t?.close(); });

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
    expect(verifyLicenseFile({ ...res.body, payload: bytes.toString('base64') }, publicKey)).toEqual({ valid: false, reason: 'bad-signature' });
  });

  it('verifies signed validation answers as received, with their nonce', async () => {
    const license = await t.createLicense();
    const ok = await t.http.post('/api/license/validate').send({ key: license.key, nonce: 'nonce-1' }).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(ok.status).toBe(200);
    const raw: Buffer = ok.body;
    expect(verifySignedValidation(raw, ok.headers['x-license-signature'], publicKey, { nonce: 'nonce-1' }))
      .toMatchObject({ valid: true, body: { license: { key: license.key } } });
    expect(verifySignedValidation(raw, ok.headers['x-license-signature'], publicKey, { nonce: 'other' })).toMatchObject({ valid: false, reason: 'nonce-mismatch' });

    const refused = await t.http.post('/api/license/validate').send({ key: 'NO-SUCH-KEY' });
    expect(verifySignedValidation(refused.text, refused.headers['x-license-signature'], publicKey))
      .toMatchObject({ valid: false, reason: 'license-invalid', error: 'License not found' });
  });
});
