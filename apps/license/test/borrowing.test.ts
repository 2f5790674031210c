import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { verifyLicenseFile } from '../../../packages/license-client/src/index.js';
import { verifyResponse } from '../src/signing/signing.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Offline files respect floating seats (decisions, wave 4, borrowing): a file of a floating
// license is bound to a machine holding a seat and borrows it (lease to now + borrowHours, never
// shortened; validUntil within the lease), so no other machine can take the seat meanwhile.

let t: TestApp;
let publicKey: string;
let admin: Session;
let clock = new Date('2026-06-01T12:00:00.000Z');
const hour = 3_600_000;
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

beforeAll(async () => {
  t = await buildTestApp({ now: () => clock });
  publicKey = (await t.http.get('/api/license/public-key')).body.publicKey as string;
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

const activate = (key: string, fingerprint: string) =>
  t.http.post('/api/license/machines/activate').send({ key, fingerprint });
const adminFile = (id: string, fingerprint?: string) =>
  t.http
    .get(`/api/licenses/${id}/file${fingerprint ? `?fingerprint=${encodeURIComponent(fingerprint)}` : ''}`)
    .set('Cookie', admin.cookie);
const borrow = (body: Record<string, unknown>) => t.http.post('/api/license/machines/borrow').send(body);
const payloadOf = (file: { payload: string }) =>
  JSON.parse(Buffer.from(file.payload, 'base64').toString('utf8')) as Record<string, unknown>;
const machinesOf = async (id: string) =>
  (await t.http.get(`/api/licenses/${id}/machines`).set('Cookie', admin.cookie)).body.machines as Array<{
    fingerprint: string;
    leaseExpiresAt: string | null;
  }>;
const floating = (extra: Record<string, unknown> = {}) =>
  t.createLicense({ hwidLimit: 1, heartbeatSeconds: 60, borrowHours: 24, ...extra });

describe(`borrowing floating seats for offline files (${testDatabaseBackend()})`, () => {
  it('refuses an unbound file of a floating license (400), and a fingerprint without a seat (404 Machine not found)', async () => {
    const { customer, session } = await t.customer();
    const license = await floating({ customer: customer._id });
    const unbound = await adminFile(license._id);
    expect([unbound.status, unbound.body.error]).toEqual([
      400,
      'This license has floating seats: a file must be bound to a machine that holds a seat (fingerprint)',
    ]);
    const portal = await t.http.get(`/api/customer/licenses/${license._id}/file`).set('Cookie', session.cookie);
    expect(portal.status).toBe(400);
    const none = await adminFile(license._id, 'fp-never');
    expect([none.status, none.body.error]).toEqual([404, 'Machine not found']);
  });

  it('a bound file borrows the seat: lease to now + borrowHours, validUntil within it, and no other machine takes the seat', async () => {
    const license = await floating();
    expect((await activate(license.key, 'fp-a')).status).toBe(201);
    const res = await adminFile(license._id, 'fp-a');
    expect(res.status).toBe(200);
    const payload = payloadOf(res.body);
    const lease = new Date(clock.getTime() + 24 * hour).toISOString();
    expect(payload).toMatchObject({ fingerprint: 'fp-a', borrowedUntil: lease });
    expect(Date.parse(String(payload.validUntil))).toBeLessThanOrEqual(Date.parse(lease));
    expect((await machinesOf(license._id))[0]!.leaseExpiresAt).toBe(lease);
    expect(verifyLicenseFile(res.body, publicKey, { hwid: 'fp-a', now: clock })).toMatchObject({ valid: true });

    // Ten minutes on, fp-a has sent no heartbeat, yet its borrowed seat holds.
    advance(10 * 60_000);
    const other = await activate(license.key, 'fp-b');
    expect([other.status, other.body.error]).toEqual([403, 'HWID limit exceeded']);
    const validated = await t.http.post('/api/license/validate').send({ key: license.key, hwid: 'fp-b' });
    expect([validated.status, validated.body.error]).toEqual([403, 'HWID limit exceeded']);
    await t.context.services.machines.sweep();
    expect((await machinesOf(license._id)).map((machine) => machine.fingerprint)).toEqual(['fp-a']);

    // After the lease, the seat is free again.
    advance(24 * hour);
    expect((await activate(license.key, 'fp-b')).status).toBe(201);
  });

  it('the 1-seat floating license of the issue no longer keeps 3 machines licensed: machines 2 and 3 get no seat and no file', async () => {
    const license = await floating();
    // Machine 1 activates, downloads its file and goes offline.
    expect((await activate(license.key, 'machine-1')).status).toBe(201);
    expect((await adminFile(license._id, 'machine-1')).status).toBe(200);
    for (const machine of ['machine-2', 'machine-3']) {
      // Each comes a few minutes later, after machine 1's heartbeats have stopped.
      advance(5 * 60_000);
      const activated = await activate(license.key, machine);
      expect([machine, activated.status, activated.body.error]).toEqual([machine, 403, 'HWID limit exceeded']);
      const file = await adminFile(license._id, machine);
      expect([machine, file.status, file.body.error]).toEqual([machine, 404, 'Machine not found']);
    }
  });

  it('borrowHours 0: floating licenses give no offline files (400 Borrowing not allowed), on every route', async () => {
    const { customer, session } = await t.customer();
    const license = await floating({ borrowHours: 0, customer: customer._id });
    await activate(license.key, 'fp-0').expect(201);
    for (const res of [
      await adminFile(license._id, 'fp-0'),
      await adminFile(license._id),
      await t.http.get(`/api/customer/licenses/${license._id}/file?fingerprint=fp-0`).set('Cookie', session.cookie),
      await borrow({ key: license.key, fingerprint: 'fp-0', hours: 1 }),
    ]) {
      expect([res.status, res.body.error]).toEqual([400, 'Borrowing not allowed']);
    }
    expect((await t.context.services.licenses.detail(license._id)).borrowHours).toBe(0);
  });

  it('POST /api/license/machines/borrow answers the machine and the file, signed; never shortens a lease; refuses more hours than allowed', async () => {
    const license = await floating();
    await activate(license.key, 'fp-app').expect(201);
    const res = await borrow({ key: ` ${license.key} `, fingerprint: 'fp-app', hours: 8, nonce: 'n-1' });
    expect(res.status).toBe(200);
    expect(verifyResponse(publicKey, res.text, String(res.headers['x-license-signature']))).toBe(true);
    const lease = new Date(clock.getTime() + 8 * hour).toISOString();
    expect(res.body).toMatchObject({
      success: true,
      nonce: 'n-1',
      machine: { fingerprint: 'fp-app', leaseExpiresAt: lease },
      license: { key: license.key, productId: license.product._id },
    });
    expect(payloadOf(res.body.file)).toMatchObject({ fingerprint: 'fp-app', borrowedUntil: lease, validUntil: lease });
    expect(verifyLicenseFile(res.body.file, publicKey, { hwid: 'fp-app', now: clock })).toMatchObject({ valid: true });
    expect(verifyLicenseFile(res.body.file, publicKey, { hwid: 'fp-other', now: clock })).toEqual({
      valid: false,
      reason: 'wrong-machine',
    });

    // A shorter borrow keeps the longer lease.
    const shorter = await borrow({ key: license.key, fingerprint: 'fp-app', hours: 1 });
    expect(shorter.body.machine.leaseExpiresAt).toBe(lease);
    expect(Date.parse(String(payloadOf(shorter.body.file).validUntil))).toBeLessThanOrEqual(Date.parse(lease));

    const tooLong = await borrow({ key: license.key, fingerprint: 'fp-app', hours: 25 });
    expect([tooLong.status, tooLong.body.error, tooLong.body.details]).toEqual([
      400,
      'Borrowing period too long',
      { hours: 'At most 24 for this license' },
    ]);
    expect(verifyResponse(publicKey, tooLong.text, String(tooLong.headers['x-license-signature']))).toBe(true);
    expect((await machinesOf(license._id))[0]!.leaseExpiresAt).toBe(lease);

    const unknown = await borrow({ key: 'NOPE-0000', fingerprint: 'fp-app', hours: 1 });
    expect([unknown.status, unknown.body.error]).toEqual([400, 'License not found']);
    const seatless = await borrow({ key: license.key, fingerprint: 'fp-none', hours: 1 });
    expect([seatless.status, seatless.body.error]).toEqual([404, 'Machine not found']);
    const invalid = await borrow({ key: license.key, fingerprint: 'fp-app', hours: 0 });
    expect([invalid.status, invalid.body.error]).toEqual([400, 'Validation failed']);
    await t.context.services.licenses.suspend({ userId: 'test', ip: null, userAgent: null }, license._id, 'audit');
    const suspended = await borrow({ key: license.key, fingerprint: 'fp-app', hours: 1 });
    expect([suspended.status, suspended.body.error]).toEqual([403, 'License suspended']);
  });

  it('a heartbeat or validation of a machine that borrowed its seat keeps the longer lease', async () => {
    const license = await floating();
    await activate(license.key, 'fp-lent').expect(201);
    const lease = new Date(clock.getTime() + 24 * hour).toISOString();
    expect((await borrow({ key: license.key, fingerprint: 'fp-lent', hours: 24 })).body.machine.leaseExpiresAt).toBe(
      lease,
    );
    advance(60_000);
    const beat = await t.http
      .post('/api/license/machines/heartbeat')
      .send({ key: license.key, fingerprint: 'fp-lent' });
    expect([beat.status, beat.body.machine.leaseExpiresAt]).toEqual([200, lease]);
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: 'fp-lent' }).expect(200);
    expect((await machinesOf(license._id))[0]!.leaseExpiresAt).toBe(lease);
    // A machine that never borrowed still renews to now + heartbeatSeconds.
    const plain = await floating();
    await activate(plain.key, 'fp-plain').expect(201);
    advance(30_000);
    const renewed = await t.http
      .post('/api/license/machines/heartbeat')
      .send({ key: plain.key, fingerprint: 'fp-plain' });
    expect(renewed.body.machine.leaseExpiresAt).toBe(new Date(clock.getTime() + 60_000).toISOString());
  });

  it('borrowing follows the license term: allowed in grace and under maintain, refused past a revoke term', async () => {
    const expiresAt = new Date(clock.getTime() - hour).toISOString();
    for (const [fields, status] of [
      [{ graceDays: 3 }, 200],
      [{ expirationStrategy: 'maintain' }, 200],
      [{}, 403],
    ] as const) {
      const license = await floating({ expiresAt: new Date(clock.getTime() + hour).toISOString(), ...fields });
      await activate(license.key, 'fp-term').expect(201);
      await t.context.services.licenses.update({ userId: 'test', ip: null, userAgent: null }, license._id, {
        expiresAt: new Date(expiresAt),
      });
      const res = await borrow({ key: license.key, fingerprint: 'fp-term', hours: 1 });
      expect([fields, res.status]).toEqual([fields, status]);
      if (status === 403) expect(res.body.error).toBe('License expired');
    }
  });

  it('licenses without floating seats behave as before; their borrow answers a bound file valid as usual', async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    await activate(license.key, 'fp-fixed').expect(201);
    const plain = await adminFile(license._id);
    expect(plain.status).toBe(200);
    expect(payloadOf(plain.body).fingerprint).toBeUndefined();
    const bound = await adminFile(license._id, 'fp-fixed');
    expect(payloadOf(bound.body)).toMatchObject({ fingerprint: 'fp-fixed' });
    expect(payloadOf(bound.body).borrowedUntil).toBeUndefined();
    expect((await adminFile(license._id, 'fp-never')).status).toBe(404);

    const res = await borrow({ key: license.key, fingerprint: 'fp-fixed', hours: 5 });
    expect(res.status).toBe(200);
    expect(res.body.machine.leaseExpiresAt).toBeNull();
    const payload = payloadOf(res.body.file);
    expect(payload.borrowedUntil).toBeUndefined();
    expect(payload.validUntil).toBe(new Date(clock.getTime() + t.config.OFFLINE_FILE_DAYS * 24 * hour).toISOString());
  });

  it('a license made from a policy copies its borrowHours; the API sets and changes it (0 to 720)', async () => {
    const product = await t.createProduct();
    const policy = await t.http
      .post('/api/policies')
      .set(admin.headers)
      .send({ productId: product._id, name: 'Floating', heartbeatSeconds: 120, borrowHours: 48 });
    expect([policy.status, policy.body.policy.borrowHours]).toEqual([201, 48]);
    const made = await t.http.post('/api/licenses').set(admin.headers).send({ policyId: policy.body.policy._id });
    expect([made.status, made.body.license.heartbeatSeconds, made.body.license.borrowHours]).toEqual([201, 120, 48]);
    const own = await t.http
      .post('/api/licenses')
      .set(admin.headers)
      .send({ policyId: policy.body.policy._id, borrowHours: 2 });
    expect(own.body.license.borrowHours).toBe(2);
    const changed = await t.http
      .put(`/api/licenses/${made.body.license._id}`)
      .set(admin.headers)
      .send({ borrowHours: 720 });
    expect([changed.status, changed.body.license.borrowHours]).toEqual([200, 720]);
    const tooMany = await t.http
      .put(`/api/licenses/${made.body.license._id}`)
      .set(admin.headers)
      .send({ borrowHours: 721 });
    expect([tooMany.status, tooMany.body.error]).toEqual([400, 'Validation failed']);
    const plain = await t.http.post('/api/licenses').set(admin.headers).send({ product: product._id });
    expect(plain.body.license.borrowHours).toBe(0);
  });
});
