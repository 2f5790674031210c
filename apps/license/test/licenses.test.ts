import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const day = 86_400_000;

describe('licenses admin API', () => {
  it('answers 401 Unauthorized without a session on every admin license route', async () => {
    const id = '00000000-0000-0000-0000-000000000000';
    const calls = [
      t.http.get('/api/licenses'),
      t.http.get(`/api/licenses/${id}`),
      t.http.post('/api/licenses').send({}),
      t.http.put(`/api/licenses/${id}`).send({ active: false }),
      t.http.delete(`/api/licenses/${id}`),
      t.http.post(`/api/licenses/${id}/suspend`).send({}),
      t.http.post(`/api/licenses/${id}/reactivate`),
      t.http.post(`/api/licenses/${id}/revoke`).send({}),
      t.http.post('/api/license/rotate').send({ key: 'X' }),
      t.http.post('/api/license/clear').send({ key: 'X' }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
    }
  });

  it('creates a license with a key from the product prefix and emits LICENSE_CREATED', async () => {
    const events: Record<string, unknown>[] = [];
    t.context.events.on('LICENSE_CREATED', (data) => {
      events.push(data);
    });
    const admin = await t.admin();
    const product = await t.createProduct({ licensePrefix: 'PRO' });
    const customer = await t.createCustomer();
    const expiresAt = new Date(Date.now() + 30 * day).toISOString();
    const res = await t.http.post('/api/licenses').set(admin.headers).send({
      product: product._id,
      customer: customer._id,
      licenseType: 'fixed',
      expiresAt,
      ipLimit: 3,
      hwidLimit: 2,
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const license = res.body.license;
    expect(license.key).toMatch(/^PRO-[A-Za-z0-9]{24}$/);
    expect(license).toMatchObject({
      product: { _id: product._id, name: product.name },
      customer: { _id: customer._id },
      licenseType: 'fixed',
      active: true,
      suspended: false,
      revoked: false,
      expiresAt,
      ipLimit: 3,
      hwidLimit: 2,
      usedIps: [],
      usedHwids: [],
    });
    expect(events.find((event) => event.licenseId === license._id)).toEqual({
      licenseKey: license.key,
      licenseId: license._id,
      productId: product._id,
      customerId: customer._id,
      licenseType: 'fixed',
      expiresAt,
    });
  });

  it('generates unique keys with plenty of entropy', async () => {
    const product = await t.createProduct({ licensePrefix: 'UNI' });
    const keys = new Set<string>();
    for (let i = 0; i < 50; i++) keys.add((await t.createLicense({ product: product._id })).key);
    expect(keys.size).toBe(50);
  });

  it('creates the four types: trial with conversion, consumption with credits, enterprise with members, and a child of a master', async () => {
    const admin = await t.admin();
    const product = await t.createProduct();
    const post = (body: Record<string, unknown>) =>
      t.http
        .post('/api/licenses')
        .set(admin.headers)
        .send({ product: product._id, ...body });

    const trial = await post({ licenseType: 'trial', autoConvert: true, convertToType: 'fixed' });
    expect(trial.status).toBe(201);
    expect(trial.body.license).toMatchObject({ licenseType: 'trial', autoConvert: true, convertToType: 'fixed' });
    expect(Date.parse(trial.body.license.expiresAt)).toBeGreaterThan(Date.now());

    const missingCredits = await post({ licenseType: 'consumption' });
    expect(missingCredits.status).toBe(400);
    expect(missingCredits.body.details).toHaveProperty('credits');
    const consumption = await post({ licenseType: 'consumption', credits: 10 });
    expect(consumption.body.license.credits).toEqual({ total: 10, used: 0, remaining: 10 });

    const enterprise = await post({
      licenseType: 'enterprise',
      members: [{ email: 'Lead@Example.com', role: 'owner' }, { email: 'dev@example.com' }],
    });
    expect(enterprise.body.license.members).toHaveLength(2);
    expect(enterprise.body.license.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'dev@example.com', role: 'member' }),
        expect.objectContaining({ email: 'lead@example.com', role: 'owner' }),
      ]),
    );

    const child = await post({ parent: enterprise.body.license._id });
    expect(child.body.license.parent).toBe(enterprise.body.license._id);
    const grandchild = await post({ parent: child.body.license._id });
    expect(grandchild.status).toBe(400);

    const badProduct = await t.http
      .post('/api/licenses')
      .set(admin.headers)
      .send({ product: '00000000-0000-0000-0000-000000000000' });
    expect(badProduct.status).toBe(404);
    expect(badProduct.body.error).toBe('Product not found');
    const badType = await post({ licenseType: 'forever' });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toBe('Validation failed');
  });

  it('lists with filters and paging, reads the detail with usage statistics, updates and deletes', async () => {
    const admin = await t.admin();
    const product = await t.createProduct();
    const customer = await t.createCustomer();
    const a = await t.createLicense({ product: product._id, customer: customer._id, licenseType: 'trial' });
    await t.createLicense({ product: product._id, licenseType: 'fixed' });
    await t.createLicense({ product: product._id, licenseType: 'fixed', active: false });

    const all = await t.http.get(`/api/licenses?product=${product._id}`).set('Cookie', admin.cookie);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ success: true, count: 3, total: 3 });
    const page = await t.http.get(`/api/licenses?product=${product._id}&limit=2&skip=2`).set('Cookie', admin.cookie);
    expect(page.body).toMatchObject({ count: 1, total: 3 });
    const trials = await t.http
      .get(`/api/licenses?product=${product._id}&licenseType=trial`)
      .set('Cookie', admin.cookie);
    expect(trials.body.licenses.map((l: { _id: string }) => l._id)).toEqual([a._id]);
    const inactive = await t.http.get(`/api/licenses?product=${product._id}&active=false`).set('Cookie', admin.cookie);
    expect(inactive.body.total).toBe(1);
    const mine = await t.http.get(`/api/licenses?customer=${customer._id}`).set('Cookie', admin.cookie);
    expect(mine.body.total).toBe(1);

    await t.http.post('/api/license/validate').send({ key: a.key, ip: '10.20.0.1', hwid: 'x' });
    const detail = await t.http.get(`/api/licenses/${a._id}`).set('Cookie', admin.cookie);
    expect(detail.body.license.product).toEqual({
      _id: product._id,
      name: product.name,
      description: 'A test product',
    });
    expect(detail.body.license.usageStats).toMatchObject({
      totalRequests: 1,
      successfulRequests: 1,
      blockedRequests: 0,
      uniqueIPs: 1,
      uniqueHWIDs: 1,
    });

    const updated = await t.http
      .put(`/api/licenses/${a._id}`)
      .set(admin.headers)
      .send({ ipLimit: 9, expiresAt: null, licenseType: 'fixed' });
    expect(updated.status).toBe(200);
    expect(updated.body.license).toMatchObject({ ipLimit: 9, expiresAt: null, licenseType: 'fixed' });

    const removed = await t.http.delete(`/api/licenses/${a._id}`).set(admin.headers);
    expect(removed.body).toEqual({ success: true });
    const gone = await t.http.get(`/api/licenses/${a._id}`).set('Cookie', admin.cookie);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ success: false, error: 'License not found' });
  });

  it('suspends with a reason, reactivates, and revokes (emitting LICENSE_REVOKED)', async () => {
    const revokedEvents: Record<string, unknown>[] = [];
    t.context.events.on('LICENSE_REVOKED', (data) => {
      revokedEvents.push(data);
    });
    const admin = await t.admin();
    const l = await t.createLicense({});
    const suspended = await t.http
      .post(`/api/licenses/${l._id}/suspend`)
      .set(admin.headers)
      .send({ reason: 'Payment overdue' });
    expect(suspended.body.license).toMatchObject({ suspended: true, suspendReason: 'Payment overdue' });
    expect((await t.http.post('/api/license/validate').send({ key: l.key })).body.error).toBe('License suspended');
    const reactivated = await t.http.post(`/api/licenses/${l._id}/reactivate`).set(admin.headers);
    expect(reactivated.body.license).toMatchObject({ suspended: false, suspendReason: null, active: true });
    expect((await t.http.post('/api/license/validate').send({ key: l.key })).status).toBe(200);
    const revoked = await t.http
      .post(`/api/licenses/${l._id}/revoke`)
      .set(admin.headers)
      .send({ reason: 'Chargeback' });
    expect(revoked.body.license).toMatchObject({ revoked: true, revokeReason: 'Chargeback' });
    expect(revokedEvents.find((event) => event.licenseId === l._id)).toEqual({
      licenseKey: l.key,
      licenseId: l._id,
      reason: 'Chargeback',
    });
    expect((await t.http.post('/api/license/validate').send({ key: l.key })).body.error).toBe('License revoked');

    const audit = await t.http.get(`/api/audit?resourceType=license&resourceId=${l._id}`).set('Cookie', admin.cookie);
    expect(audit.body.auditLogs.map((entry: { action: string }) => entry.action)).toEqual([
      'revoke',
      'activate',
      'suspend',
      'create',
    ]);
    expect(audit.body.auditLogs[2].changes.before.suspended).toBe(false);
    expect(audit.body.auditLogs[2].changes.after.suspended).toBe(true);
  });
});

describe('POST /api/license/rotate and /api/license/clear', () => {
  it('rotates the key: the old key stops validating at once, the new one works', async () => {
    const admin = await t.admin();
    const l = await t.createLicense({});
    const res = await t.http.post('/api/license/rotate').set(admin.headers).send({ key: l.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, oldKey: l.key, newKey: expect.stringMatching(/^TEST-[A-Za-z0-9]{24}$/) });
    expect(res.body.newKey).not.toBe(l.key);
    const old = await t.http.post('/api/license/validate').send({ key: l.key });
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('License not found');
    expect((await t.http.post('/api/license/validate').send({ key: res.body.newKey })).status).toBe(200);
  });

  it('clears the IP and hardware id restrictions so new ones may validate', async () => {
    const admin = await t.admin();
    const l = await t.createLicense({ ipLimit: 1, hwidLimit: 1 });
    await t.http.post('/api/license/validate').send({ key: l.key, ip: '10.30.0.1', hwid: 'a' });
    expect(
      (await t.http.post('/api/license/validate').send({ key: l.key, ip: '10.30.0.2', hwid: 'b' })).body.error,
    ).toBe('IP limit exceeded');
    const res = await t.http.post('/api/license/clear').set(admin.headers).send({ key: l.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'License restrictions cleared' });
    const after = await t.http.post('/api/license/validate').send({ key: l.key, ip: '10.30.0.2', hwid: 'b' });
    expect(after.status).toBe(200);
    expect(after.body.license).toMatchObject({ usedIps: ['10.30.0.2'], usedHwids: ['b'] });
  });

  it('answers 404 License not found for an unknown key, and 400 without a key', async () => {
    const admin = await t.admin();
    for (const path of ['/api/license/rotate', '/api/license/clear']) {
      const res = await t.http.post(path).set(admin.headers).send({ key: 'TEST-nope' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'License not found' });
      const missing = await t.http.post(path).set(admin.headers).send({});
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('Validation failed');
    }
  });
});
