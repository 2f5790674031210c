import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { ADMIN_SETTINGS_LIMIT } from '../src/rate-limits/rate-limits.js';
import { buildTestApp, type TestApp } from './helpers.js';

// Redis when REDIS_URL is set (the PostgreSQL run), the memory store otherwise.
const store = testRateLimitStore();
afterAll(async () => {
  await store.close();
});

describe('panic mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { PANIC_MODE: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('PANIC_MODE=true answers 503 on validation and the customer API; admin routes stay reachable', async () => {
    const customer = await t.createCustomer({ userId: 'carol' });
    const license = await t.createLicense({ customer: customer._id });
    const validation = await t.http.post('/api/license/validate').send({ key: license.key });
    expect(validation.status).toBe(503);
    expect(validation.body).toMatchObject({
      success: false,
      valid: false,
      error: 'Service unavailable: panic mode is active',
    });
    const carol = await t.signIn('carol');
    for (const path of ['/api/customer/licenses/stats', `/api/customer/licenses/${license._id}`]) {
      const res = await t.http.get(path).set('Cookie', carol.cookie);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Service unavailable: panic mode is active' });
    }
    const admin = await t.admin();
    expect((await t.http.get('/api/products').set('Cookie', admin.cookie)).status).toBe(200);
    expect((await t.http.get('/api/admin/panic').set('Cookie', admin.cookie)).body).toEqual({
      success: true,
      panicMode: true,
    });
  });

  it('an admin turns panic mode off and on at run time', async () => {
    const admin = await t.admin();
    const license = await t.createLicense({});
    const off = await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: false });
    expect(off.body).toEqual({ success: true, panicMode: false });
    expect((await t.http.post('/api/license/validate').send({ key: license.key })).status).toBe(200);
    const on = await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ security: { panicMode: true } });
    expect(on.body.config.security).toEqual({ panicMode: true });
    expect((await t.http.post('/api/license/validate').send({ key: license.key })).status).toBe(503);
    const logs = await t.http.get('/api/audit?resourceType=system').set('Cookie', admin.cookie);
    expect(logs.body.auditLogs.length).toBeGreaterThanOrEqual(2);
    const anonymous = await t.http.post('/api/admin/panic').send({ enabled: false });
    expect(anonymous.status).toBe(401);
  });
});

describe(`public rate limit (${store.kind} store)`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' }, redis: store.redis });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 429 Too many requests, please try again later after the maximum, with the X-RateLimit headers', async () => {
    const license = await t.createLicense({});
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.http.post('/api/license/validate').send({ key: license.key }));
    expect(answers.slice(0, 3).map((res) => res.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('3');
    expect(answers[0]!.headers['x-ratelimit-remaining']).toBe('2');
    expect(Number(answers[0]!.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(answers[3]!.status).toBe(429);
    expect(answers[3]!.body).toMatchObject({ success: false, error: 'Too many requests, please try again later' });
  });

  it('takes a new maximum from the runtime configuration (keys enabled, windowMs, max)', async () => {
    const admin = await t.admin();
    const res = await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ rateLimit: { max: 50 } });
    expect(res.status).toBe(200);
    expect(res.body.config.rateLimit).toEqual({ enabled: true, windowMs: 60000, max: 50 });
    const license = await t.createLicense({});
    const after = await t.http.post('/api/license/validate').send({ key: license.key });
    expect(after.status).toBe(200);
    expect(after.headers['x-ratelimit-limit']).toBe('50');
    await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ rateLimit: { enabled: false } });
    const unlimited = await t.http.post('/api/license/validate').send({ key: license.key });
    expect(unlimited.headers['x-ratelimit-limit']).toBeUndefined();
    const bad = await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ rateLimit: { max: 0 } });
    expect(bad.status).toBe(400);
  });
});

describe(`limits for signed-in people (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  let t: TestApp;
  // Behind one proxy hop, so each request can say which address it comes from.
  const OFFICE = '198.51.100.20';
  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        RATE_LIMIT_MAX: '3',
        RATE_LIMIT_WINDOW_MS: '60000',
        TRUST_PROXY: '1',
        JWT_SECRET: 'jwt-secret-for-limit-tests-0123456789abcdef',
      },
      redis: store.redis,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("when applications at the admin's address use up the public limit, the admin still reads and changes the configuration", async () => {
    const license = await t.createLicense({});
    const validations = [];
    for (let i = 0; i < 4; i++) {
      validations.push(
        (await t.http.post('/api/license/validate').set('X-Forwarded-For', OFFICE).send({ key: license.key })).status,
      );
    }
    expect(validations).toEqual([200, 200, 200, 429]);

    const admin = await t.admin();
    const read = await t.http.get('/api/admin/config').set('Cookie', admin.cookie).set('X-Forwarded-For', OFFICE);
    expect(read.status).toBe(200);
    expect(read.headers['x-ratelimit-limit']).toBe(String(ADMIN_SETTINGS_LIMIT.limit));
    const changed = await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .set('X-Forwarded-For', OFFICE)
      .send({ rateLimit: { max: 5 }, userRateLimit: { max: 500 } });
    expect(changed.status).toBe(200);
    expect(changed.body.config.rateLimit).toEqual({ enabled: true, windowMs: 60000, max: 5 });
    expect(changed.body.config.userRateLimit).toEqual({ windowMs: 15 * 60_000, max: 500 });
    const products = await t.http.get('/api/products').set('Cookie', admin.cookie).set('X-Forwarded-For', OFFICE);
    expect(products.status).toBe(200);
    expect(products.headers['x-ratelimit-limit']).toBe('500');
    expect(Number(products.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  it("an admin's own limit answers that admin 429 (session and token alike), but not applications, customers or the configuration", async () => {
    const admin = await t.admin();
    const token = (await t.http.post('/api/auth/token').set(admin.headers)).body.token as string;
    const probe = await t.http.get('/api/products').set('Cookie', admin.cookie);
    const counted = 500 - Number(probe.headers['x-ratelimit-remaining']);
    await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ userRateLimit: { max: counted + 2 } });

    expect((await t.http.get('/api/products').set('Cookie', admin.cookie)).status).toBe(200);
    expect((await t.http.get('/api/licenses').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const limited = await t.http.get('/api/customers').set('Cookie', admin.cookie);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: 'Too many requests, please try again later' });
    expect((await t.http.get('/api/products').set('Authorization', `Bearer ${token}`)).status).toBe(429);

    // Others are counted apart: an application at the same address, a customer signed in there.
    const license = await t.createLicense({});
    expect(
      (await t.http.post('/api/license/validate').set('X-Forwarded-For', '203.0.113.9').send({ key: license.key }))
        .status,
    ).toBe(200);
    const { session } = await t.customer();
    expect((await t.http.get('/api/customer/licenses/stats').set('Cookie', session.cookie)).status).toBe(200);

    // The configuration stays open to the admin, who raises the limit again.
    expect((await t.http.get('/api/admin/config').set('Cookie', admin.cookie)).status).toBe(200);
    const raised = await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ userRateLimit: { max: 1000 } });
    expect(raised.status).toBe(200);
    expect((await t.http.get('/api/products').set('Cookie', admin.cookie)).status).toBe(200);
  });

  it('each customer has a count of their own', async () => {
    const admin = await t.admin();
    await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ userRateLimit: { max: 2 } });
    const [first, second] = [await t.customer(), await t.customer()];
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await t.http.get('/api/customer/licenses/stats').set('Cookie', first.session.cookie)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await t.http.get('/api/customer/licenses/stats').set('Cookie', second.session.cookie)).status).toBe(200);
    const invalid = await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ userRateLimit: { max: 0 } });
    expect(invalid.status).toBe(400);
    await t.http
      .put('/api/admin/config')
      .set(admin.headers)
      .send({ userRateLimit: { max: 1000 } });
  });
});
