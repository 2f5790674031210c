import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

let t: TestApp;
let alice: Session;
let aliceId: string;
let signedInUserId: string;
let bobLicenseId: string;
let admin: Session;

beforeAll(async () => {
  t = await buildTestApp();
  const signedIn = await t.customer();
  alice = signedIn.session;
  aliceId = signedIn.customer._id;
  signedInUserId = signedIn.customer.userId!;
  const bob = await t.createCustomer();
  bobLicenseId = (await t.createLicense({ customer: bob._id, ipLimit: 5, hwidLimit: 5 }))._id;
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

/** A license of Alice's that has validated from these IPs (with hardware ids `pc-<n>`). */
async function boundLicense(ips: string[], owner = aliceId) {
  const license = await t.createLicense({ customer: owner, ipLimit: 50, hwidLimit: 50 });
  for (const [index, ip] of ips.entries()) {
    const res = await t.http.post('/api/license/validate').send({ key: license.key, ip, hwid: `pc-${index}` });
    expect(res.status).toBe(200);
  }
  return license;
}

const release = (session: Session, licenseId: string, body: object) =>
  t.http.post(`/api/customer/licenses/${licenseId}/release`).set(session.headers).send(body);

describe('POST /api/customer/licenses/:licenseId/release', () => {
  it('releases an IP and a hardware id: 200 with the license, and they are gone', async () => {
    const license = await boundLicense(['10.60.0.1', '10.60.0.2']);
    const byIp = await release(alice, license._id, { ip: '10.60.0.1' });
    expect(byIp.status).toBe(200);
    expect(byIp.body.success).toBe(true);
    expect(byIp.body.license).toMatchObject({
      _id: license._id,
      key: license.key,
      usedIps: ['10.60.0.2'],
      usedHwids: ['pc-0', 'pc-1'],
    });
    // The shape of the customer API's license (no admin-only fields).
    expect(byIp.body.license).not.toHaveProperty('metadata');
    const byHwid = await release(alice, license._id, { hwid: 'pc-0' });
    expect(byHwid.status).toBe(200);
    expect(byHwid.body.license).toMatchObject({ usedIps: ['10.60.0.2'], usedHwids: ['pc-1'] });
    const detail = await t.http.get(`/api/customer/licenses/${license._id}/detail`).set('Cookie', alice.cookie);
    expect(detail.body.license).toMatchObject({ usedIps: ['10.60.0.2'], usedHwids: ['pc-1'] });
  });

  it('answers 404 Not in use for an IP or hardware id the license has not recorded', async () => {
    const license = await boundLicense(['10.61.0.1']);
    for (const body of [{ ip: '10.61.0.9' }, { hwid: 'elsewhere' }, { hwid: '10.61.0.1' }]) {
      const res = await release(alice, license._id, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Not in use' });
    }
  });

  it("answers 404 License not found for another customer's license or an unknown one, and changes nothing", async () => {
    await t.http.post('/api/license/validate').send({
      key: (await t.http.get(`/api/licenses/${bobLicenseId}`).set('Cookie', admin.cookie)).body.license.key,
      ip: '10.62.0.1',
    });
    for (const id of [bobLicenseId, '00000000-0000-0000-0000-000000000000', 'garbage']) {
      const res = await release(alice, id, { ip: '10.62.0.1' });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'License not found' });
    }
    const bob = await t.http.get(`/api/licenses/${bobLicenseId}`).set('Cookie', admin.cookie);
    expect(bob.body.license.usedIps).toEqual(['10.62.0.1']);
  });

  it('answers 400 unless the body has exactly one of ip and hwid', async () => {
    const license = await boundLicense(['10.63.0.1']);
    for (const body of [
      {},
      { ip: '10.63.0.1', hwid: 'pc-0' },
      { ip: '' },
      { ip: 5 },
      { ip: '10.63.0.1', extra: true },
    ]) {
      const res = await release(alice, license._id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('Validation failed');
    }
  });

  it('needs a signed-in customer and the CSRF token', async () => {
    const license = await boundLicense(['10.64.0.1']);
    const anonymous = await t.http.post(`/api/customer/licenses/${license._id}/release`).send({ ip: '10.64.0.1' });
    expect(anonymous.status).toBe(401);
    const noCsrf = await t.http
      .post(`/api/customer/licenses/${license._id}/release`)
      .set('Cookie', alice.cookie)
      .send({ ip: '10.64.0.1' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual({ success: false, error: 'Invalid CSRF token' });
    const stranger = await t.signIn(`stranger-${process.pid}`);
    expect((await release(stranger, license._id, { ip: '10.64.0.1' })).status).toBe(403);
  });

  it('allows CUSTOMER_RELEASES_PER_DAY (3) releases per license in 24 hours, then 429 Release limit reached', async () => {
    expect(t.config.CUSTOMER_RELEASES_PER_DAY).toBe(3);
    const license = await boundLicense(['10.65.0.1', '10.65.0.2', '10.65.0.3', '10.65.0.4']);
    for (const ip of ['10.65.0.1', '10.65.0.2', '10.65.0.3'])
      expect((await release(alice, license._id, { ip })).status).toBe(200);
    const fourth = await release(alice, license._id, { hwid: 'pc-3' });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toEqual({ success: false, error: 'Release limit reached' });
    const detail = await t.http.get(`/api/customer/licenses/${license._id}/detail`).set('Cookie', alice.cookie);
    expect(detail.body.license.usedIps).toEqual(['10.65.0.4']);
    expect(detail.body.license.usedHwids).toContain('pc-3');
    // The limit is per license: another license of the same customer still releases.
    const other = await boundLicense(['10.65.1.1']);
    expect((await release(alice, other._id, { ip: '10.65.1.1' })).status).toBe(200);
  });

  it('counts only the last 24 hours: a day later the license releases again', async () => {
    const license = await boundLicense(['10.68.0.1', '10.68.0.2', '10.68.0.3', '10.68.0.4']);
    for (const ip of ['10.68.0.1', '10.68.0.2', '10.68.0.3'])
      expect((await release(alice, license._id, { ip })).status).toBe(200);
    expect((await release(alice, license._id, { ip: '10.68.0.4' })).status).toBe(429);
    // A second instance on the same data whose clock is 25 hours ahead.
    const later = await buildTestApp({ database: t.database, now: () => new Date(Date.now() + 25 * 3_600_000) });
    try {
      const session = await later.signIn(signedInUserId);
      const res = await later.http
        .post(`/api/customer/licenses/${license._id}/release`)
        .set(session.headers)
        .send({ ip: '10.68.0.4' });
      expect(res.status).toBe(200);
      expect(res.body.license.usedIps).toEqual([]);
    } finally {
      await later.close();
    }
  });

  it('keeps the limit exact under 10 simultaneous releases: exactly 3 succeed', async () => {
    const ips = Array.from({ length: 10 }, (_, index) => `10.66.0.${index + 1}`);
    const license = await boundLicense(ips);
    const answers = await Promise.all(ips.map((ip) => release(alice, license._id, { ip })));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    const detail = await t.http.get(`/api/customer/licenses/${license._id}/detail`).set('Cookie', alice.cookie);
    expect(detail.body.license.usedIps).toHaveLength(7);
    const audit = await t.http
      .get('/api/audit')
      .query({ resourceId: license._id, action: 'release' })
      .set('Cookie', admin.cookie);
    expect(audit.body.total).toBe(3);
    // The limit's own counter holds one row per release that passed.
    const counted = await t.database.pool.query(
      'SELECT count(*)::int AS n FROM license_releases WHERE license_id = $1',
      [license._id],
    );
    expect(counted.rows[0].n).toBe(3);
  });

  it('writes an audit record of each release: who, what was released, before and after', async () => {
    const license = await boundLicense(['10.67.0.1', '10.67.0.2']);
    const res = await t.http
      .post(`/api/customer/licenses/${license._id}/release`)
      .set(alice.headers)
      .set('User-Agent', 'release-test')
      .send({ hwid: 'pc-1' });
    expect(res.status).toBe(200);
    const audit = await t.http
      .get('/api/audit')
      .query({ resourceType: 'license', resourceId: license._id, action: 'release' })
      .set('Cookie', admin.cookie);
    expect(audit.status).toBe(200);
    expect(audit.body.auditLogs).toHaveLength(1);
    const [entry] = audit.body.auditLogs;
    expect(entry).toMatchObject({
      action: 'release',
      resourceType: 'license',
      resourceId: license._id,
      success: true,
      userAgent: 'release-test',
      changes: {
        before: { usedIps: ['10.67.0.1', '10.67.0.2'], usedHwids: ['pc-0', 'pc-1'] },
        after: {
          usedIps: ['10.67.0.1', '10.67.0.2'],
          usedHwids: ['pc-0'],
          released: { hwid: 'pc-1' },
          customerId: aliceId,
        },
      },
    });
    expect(entry.userId).toMatch(/^customer-/);
  });
});
