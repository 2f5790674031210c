import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { createActivationRequest, verifyLicenseFile } from '../../../packages/license-client/src/index.js';
import { fileQrSvg } from '../src/machines/offline-activation.page-data.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Air-gapped machines (decisions, wave 4): the client package's request code, pasted by the
// customer in the portal or by an admin in the console, activates the machine under the usual
// limits and answers a file bound to it that the client's verifyLicenseFile accepts.

let t: TestApp;
let publicKey: string;
let admin: Session;

beforeAll(async () => {
  t = await buildTestApp();
  publicKey = (await t.http.get('/api/license/public-key')).body.publicKey as string;
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

const portal = (session: Session, licenseId: string, requestCode: unknown) =>
  t.http.post(`/api/customer/licenses/${licenseId}/machines/offline`).set(session.headers).send({ requestCode });
const console_ = (licenseId: string, requestCode: unknown) =>
  t.http.post(`/api/licenses/${licenseId}/machines/offline`).set(admin.headers).send({ requestCode });
const payloadOf = (file: { payload: string }) =>
  JSON.parse(Buffer.from(file.payload, 'base64').toString('utf8')) as Record<string, unknown>;

describe(`createActivationRequest (${testDatabaseBackend()})`, () => {
  it('stays under 600 characters with the longest name, platform and fingerprint (the name is shortened), and refuses what cannot fit', () => {
    const code = createActivationRequest({
      key: 'ACME-ABCDE-FGHIJ-KLMNO-PQRST-UVWXY',
      fingerprint: 'f'.repeat(200),
      name: 'Ä long machine name '.repeat(20),
      platform: 'p'.repeat(80),
    });
    expect(code.length).toBeLessThan(600);
    expect(code).toMatch(/^[A-Za-z0-9_-]+$/);
    const decoded = JSON.parse(Buffer.from(code, 'base64url').toString('utf8'));
    expect(decoded).toMatchObject({ v: 1, k: 'ACME-ABCDE-FGHIJ-KLMNO-PQRST-UVWXY', f: 'f'.repeat(200) });
    expect(() => createActivationRequest({ key: 'K'.repeat(400), fingerprint: 'f'.repeat(200) })).toThrow(RangeError);
    expect(() => createActivationRequest({ key: 'K-1', fingerprint: '' })).toThrow(RangeError);
  });
});

describe(`offline activation (${testDatabaseBackend()})`, () => {
  it('a customer activates an air-gapped machine of their license: 201 with a bound file the client verifies; 200 again', async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id, hwidLimit: 2 });
    const requestCode = createActivationRequest({
      key: license.key,
      fingerprint: 'air-1',
      name: 'Lab PC',
      platform: 'windows',
    });
    const res = await portal(session, license._id, requestCode);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      success: true,
      machine: { fingerprint: 'air-1', name: 'Lab PC', platform: 'windows' },
      file: { format: 'license-file/1' },
    });
    expect(verifyLicenseFile(res.body.file, publicKey, { hwid: 'air-1' })).toMatchObject({
      valid: true,
      license: { key: license.key, fingerprint: 'air-1', usedHwids: ['air-1'] },
    });
    expect(JSON.stringify(res.body.file).length).toBeLessThan(1500);
    // A code split over lines by a textarea or an email still reads.
    const again = await portal(session, license._id, requestCode.replace(/(.{40})/g, '$1\n'));
    expect([again.status, again.body.machine._id]).toEqual([200, res.body.machine._id]);
    const audit = await t.database.pool.query(
      `SELECT user_id, changes FROM audit_logs WHERE resource_id = $1 AND changes->'after' ? 'offlineActivation'`,
      [license._id],
    );
    expect(audit.rows).toHaveLength(2);
  });

  it("another customer's license reads as missing (404); a write without the CSRF token is refused", async () => {
    const owner = await t.customer();
    const other = await t.customer();
    const license = await t.createLicense({ customer: owner.customer._id });
    const code = createActivationRequest({ key: license.key, fingerprint: 'air-x' });
    const res = await portal(other.session, license._id, code);
    expect([res.status, res.body.error]).toEqual([404, 'License not found']);
    const noCsrf = await t.http
      .post(`/api/customer/licenses/${license._id}/machines/offline`)
      .set('Cookie', owner.session.cookie)
      .send({ requestCode: code });
    expect(noCsrf.status).toBe(403);
    expect((await t.context.services.licenses.detail(license._id)).usedHwids).toEqual([]);
  });

  it('refuses bad codes with clear texts: unreadable, not a request, for another license', async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id });
    const elsewhere = await t.createLicense({ customer: customer._id });
    const cases: Array<[unknown, number, string]> = [
      ['not a code!', 400, 'Activation request code is not valid'],
      ['', 400, 'Activation request code is not valid'],
      [Buffer.from('{"v":2}').toString('base64url'), 400, 'Activation request code is not valid'],
      [Buffer.from('hello').toString('base64url'), 400, 'Activation request code is not valid'],
      [42, 400, 'Validation failed'],
      [
        createActivationRequest({ key: elsewhere.key, fingerprint: 'air-y' }),
        400,
        'Activation request code is for another license',
      ],
    ];
    for (const [code, status, error] of cases) {
      const res = await portal(session, license._id, code);
      expect([code, res.status, res.body.error]).toEqual([code, status, error]);
    }
  });

  it('an admin activates offline (audited), under the usual seat limits: 403 HWID limit exceeded', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    const first = await console_(license._id, createActivationRequest({ key: license.key, fingerprint: 'air-a' }));
    expect(first.status).toBe(201);
    expect(verifyLicenseFile(first.body.file, publicKey, { hwid: 'air-a' })).toMatchObject({ valid: true });
    const second = await console_(license._id, createActivationRequest({ key: license.key, fingerprint: 'air-b' }));
    expect([second.status, second.body.error]).toEqual([403, 'HWID limit exceeded']);
    const audit = await t.database.pool.query(
      `SELECT user_id, action, changes FROM audit_logs WHERE resource_id = $1 AND changes->'after' ? 'offlineActivation'`,
      [license._id],
    );
    expect(audit.rows).toMatchObject([{ user_id: 'admin', action: 'update' }]);
    await t.context.services.licenses.revoke({ userId: 'test', ip: null, userAgent: null }, license._id, 'gone');
    const revoked = await console_(license._id, createActivationRequest({ key: license.key, fingerprint: 'air-a' }));
    expect([revoked.status, revoked.body.error]).toEqual([403, 'License revoked']);
    const missing = await console_('00000000-0000-4000-8000-000000000000', 'abc');
    expect([missing.status, missing.body.error]).toEqual([404, 'License not found']);
  });

  it('on a floating license the file borrows the seat; borrowHours 0 refuses before any seat is taken', async () => {
    const license = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 60, borrowHours: 12 });
    const res = await console_(license._id, createActivationRequest({ key: license.key, fingerprint: 'air-f' }));
    expect(res.status).toBe(201);
    const payload = payloadOf(res.body.file);
    expect(payload).toMatchObject({ fingerprint: 'air-f', borrowedUntil: res.body.machine.leaseExpiresAt });
    expect(Date.parse(String(payload.validUntil))).toBeLessThanOrEqual(Date.parse(String(payload.borrowedUntil)));
    expect(Date.parse(res.body.machine.leaseExpiresAt) - Date.now()).toBeGreaterThan(11 * 3_600_000);

    const closed = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 60 });
    const refused = await console_(closed._id, createActivationRequest({ key: closed.key, fingerprint: 'air-g' }));
    expect([refused.status, refused.body.error]).toEqual([400, 'Borrowing not allowed']);
    expect((await t.context.services.licenses.detail(closed._id)).usedHwids).toEqual([]);
  });

  it('the console page shows the file as a QR code, or says it is too long for one and offers the download only', async () => {
    const pagePost = (id: string, requestCode: string) =>
      t.http
        .post(`/licenses/${id}/machines/offline`)
        .set('Cookie', admin.cookie)
        .type('form')
        .send({ _csrf: admin.csrfToken, requestCode });
    const small = await t.createLicense({ hwidLimit: 3 });
    const shown = await pagePost(small._id, createActivationRequest({ key: small.key, fingerprint: 'air-qr' }));
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('aria-label="QR code of the license file"');
    expect(shown.text).toContain('download="');

    // Forty machines with long fingerprints: the file lists them all, too much for one QR code.
    const crowded = await t.createLicense({ hwidLimit: 0 });
    for (let index = 0; index < 40; index += 1) {
      await t.http
        .post('/api/license/machines/activate')
        .send({ key: crowded.key, fingerprint: `${String(index).padStart(3, '0')}${'f'.repeat(120)}` })
        .expect(201);
    }
    const long = await pagePost(crowded._id, createActivationRequest({ key: crowded.key, fingerprint: 'air-long' }));
    expect(long.status).toBe(200);
    expect(long.text).toContain('too long for one QR code');
    expect(long.text).not.toContain('aria-label="QR code of the license file"');
    expect(long.text).toContain('Download the license file');
    expect(await fileQrSvg('x'.repeat(3000), 'too much')).toBeNull();

    const refused = await pagePost(small._id, 'nonsense!');
    expect([refused.status, refused.text.includes('Activation request code is not valid.')]).toEqual([400, true]);
  });
});
