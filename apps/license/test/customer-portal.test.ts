import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

let t: TestApp;
let alice: Session;
let aliceLicenses: Awaited<ReturnType<TestApp['createLicense']>>[];
let bobLicense: Awaited<ReturnType<TestApp['createLicense']>>;
const day = 86_400_000;

beforeAll(async () => {
  t = await buildTestApp();
  const aliceRecord = await t.createCustomer({ userId: 'alice' });
  const bobRecord = await t.createCustomer({ userId: 'bob' });
  const product = await t.createProduct({ name: 'Suite', description: 'Office suite' });
  aliceLicenses = [
    await t.createLicense({ product: product._id, customer: aliceRecord._id, licenseType: 'fixed', ipLimit: 1 }),
    await t.createLicense({ product: product._id, customer: aliceRecord._id, licenseType: 'consumption', credits: 5 }),
    await t.createLicense({
      product: product._id,
      customer: aliceRecord._id,
      licenseType: 'trial',
      expiresAt: new Date(Date.now() - day),
    }),
  ];
  bobLicense = await t.createLicense({
    product: product._id,
    customer: bobRecord._id,
    licenseType: 'consumption',
    credits: 3,
  });
  alice = await t.signIn('alice');
});
afterAll(async () => {
  await t?.close();
});

const routes = (id: string) => [
  `/api/customer/licenses/${id}`,
  `/api/customer/licenses/${id}/detail`,
  `/api/customer/licenses/${id}/usage`,
  `/api/customer/licenses/${id}/credits`,
];

describe('customer API', () => {
  it('answers 401 Unauthorized without a session on every route', async () => {
    for (const path of [...routes(aliceLicenses[0]!._id), '/api/customer/licenses/stats']) {
      const res = await t.http.get(path);
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
    }
  });

  it("answers 404 License not found for another customer's license on every route", async () => {
    const [, ...licenseRoutes] = routes('00000000-0000-0000-0000-000000000000');
    const [, ...garbageRoutes] = routes('garbage');
    for (const path of [...routes(bobLicense._id), ...licenseRoutes, ...garbageRoutes]) {
      const res = await t.http.get(path).set('Cookie', alice.cookie);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'License not found' });
    }
  });

  it('gives a new customer an empty stats summary', async () => {
    const { session } = await t.customer();
    const res = await t.http.get('/api/customer/licenses/stats').set('Cookie', session.cookie);
    expect(res.status).toBe(200);
    expect(res.body.stats).toMatchObject({
      totalLicenses: 0,
      totalRequests: 0,
      byType: { fixed: 0, trial: 0, consumption: 0, enterprise: 0 },
    });
  });

  it('answers 403 to a signed-in user who is not a customer', async () => {
    const stranger = await t.signIn('stranger');
    const res = await t.http.get('/api/customer/licenses/stats').set('Cookie', stranger.cookie);
    expect(res.status).toBe(403);
  });

  it.each(['all', '00000000-0000-0000-0000-000000000000'])(
    'lists the customer licenses whatever the id segment (%s) holds, unless it names another customer license',
    async (segment) => {
      const res = await t.http.get(`/api/customer/licenses/${segment}`).set('Cookie', alice.cookie);
      expect(res.status).toBe(200);
      expect(res.body.licenses.map((l: { _id: string }) => l._id).sort()).toEqual(
        aliceLicenses.map((l) => l._id).sort(),
      );
      const { session } = await t.customer();
      const empty = await t.http.get(`/api/customer/licenses/${segment}`).set('Cookie', session.cookie);
      expect(empty.body).toEqual({ success: true, licenses: [] });
    },
  );

  it('lists only the signed-in customer licenses with the spec fields', async () => {
    const res = await t.http.get(`/api/customer/licenses/${aliceLicenses[0]!._id}`).set('Cookie', alice.cookie);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.licenses.map((l: { _id: string }) => l._id).sort()).toEqual(aliceLicenses.map((l) => l._id).sort());
    const first = res.body.licenses.find((l: { _id: string }) => l._id === aliceLicenses[0]!._id);
    expect(first).toMatchObject({
      _id: aliceLicenses[0]!._id,
      key: aliceLicenses[0]!.key,
      product: { _id: aliceLicenses[0]!.product._id, name: 'Suite' },
      active: true,
      expiresAt: null,
      licenseType: 'fixed',
      ipLimit: 1,
      hwidLimit: 0,
      usedIps: [],
      usedHwids: [],
    });
  });

  it('shows the detail with the product description and usage statistics', async () => {
    const l = aliceLicenses[0]!;
    await t.http.post('/api/license/validate').send({ key: l.key, ip: '10.40.0.1', hwid: 'pc' });
    await t.http.post('/api/license/validate').send({ key: l.key, ip: '10.40.0.2', hwid: 'pc' });
    const res = await t.http.get(`/api/customer/licenses/${l._id}/detail`).set('Cookie', alice.cookie);
    expect(res.status).toBe(200);
    expect(res.body.license.product).toEqual({ _id: l.product._id, name: 'Suite', description: 'Office suite' });
    expect(res.body.license.usageStats).toEqual({
      totalRequests: 2,
      successfulRequests: 1,
      blockedRequests: 1,
      uniqueIPs: 2,
      uniqueHWIDs: 1,
      lastUsed: expect.any(String),
    });
  });

  it('reports usage with byStatus, dailyStats and the requests, within startDate/endDate', async () => {
    const l = aliceLicenses[0]!;
    const res = await t.http.get(`/api/customer/licenses/${l._id}/usage`).set('Cookie', alice.cookie);
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.usage).toMatchObject({ total: 2, byStatus: { success: 1, blocked: 1, invalid: 0 } });
    expect(res.body.usage.dailyStats).toEqual({ [today]: { success: 1, blocked: 1, invalid: 0 } });
    expect(res.body.usage.requests).toHaveLength(2);
    expect(res.body.usage.requests[0]).toEqual({
      _id: expect.any(String),
      ipAddress: '10.40.0.2',
      hwid: 'pc',
      status: 'blocked',
      reason: 'IP limit exceeded',
      createdAt: expect.any(String),
    });
    const past = await t.http
      .get(`/api/customer/licenses/${l._id}/usage`)
      .query({ startDate: '2020-01-01T00:00:00Z', endDate: '2020-12-31T00:00:00Z' })
      .set('Cookie', alice.cookie);
    expect(past.body.usage).toEqual({
      total: 0,
      byStatus: { success: 0, blocked: 0, invalid: 0 },
      dailyStats: {},
      requests: [],
    });
    const bad = await t.http
      .get(`/api/customer/licenses/${l._id}/usage?startDate=yesterday`)
      .set('Cookie', alice.cookie);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Validation failed');
  });

  it('summarises the customer licenses in stats', async () => {
    const res = await t.http.get('/api/customer/licenses/stats').set('Cookie', alice.cookie);
    expect(res.status).toBe(200);
    expect(res.body.stats).toEqual({
      totalLicenses: 3,
      activeLicenses: 2,
      expiredLicenses: 1,
      suspendedLicenses: 0,
      totalRequests: 2,
      successfulRequests: 1,
      byType: { fixed: 1, trial: 1, consumption: 1, enterprise: 0 },
    });
  });

  it('shows credits of a consumption license and refuses others', async () => {
    const consumption = aliceLicenses[1]!;
    await t.http.post('/api/license/validate').send({ key: consumption.key, ip: '10.41.0.1' });
    const res = await t.http.get(`/api/customer/licenses/${consumption._id}/credits`).set('Cookie', alice.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, credits: { total: 5, used: 1, remaining: 4 } });
    const fixed = await t.http
      .get(`/api/customer/licenses/${aliceLicenses[0]!._id}/credits`)
      .set('Cookie', alice.cookie);
    expect(fixed.status).toBe(400);
    expect(fixed.body).toEqual({ success: false, error: 'License is not a consumption-based license' });
  });
});
