import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

describe('panic mode', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ env: { PANIC_MODE: 'true' } }); });
  afterAll(async () => { await t?.close(); });

  it('PANIC_MODE=true answers 503 on validation and the customer API; admin routes stay reachable', async () => {
    const customer = await t.createCustomer({ userId: 'carol' });
    const license = await t.createLicense({ customer: customer._id });
    const validation = await t.http.post('/api/license/validate').send({ key: license.key });
    expect(validation.status).toBe(503);
    expect(validation.body).toMatchObject({ success: false, valid: false, error: 'Service unavailable: panic mode is active' });
    const carol = await t.signIn('carol');
    for (const path of ['/api/customer/licenses/stats', `/api/customer/licenses/${license._id}`]) {
      const res = await t.http.get(path).set('Cookie', carol.cookie);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Service unavailable: panic mode is active' });
    }
    const admin = await t.admin();
    expect((await t.http.get('/api/products').set('Cookie', admin.cookie)).status).toBe(200);
    expect((await t.http.get('/api/admin/panic').set('Cookie', admin.cookie)).body).toEqual({ success: true, panicMode: true });
  });

  it('an admin turns panic mode off and on at run time', async () => {
    const admin = await t.admin();
    const license = await t.createLicense({});
    const off = await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: false });
    expect(off.body).toEqual({ success: true, panicMode: false });
    expect((await t.http.post('/api/license/validate').send({ key: license.key })).status).toBe(200);
    const on = await t.http.put('/api/admin/config').set(admin.headers).send({ security: { panicMode: true } });
    expect(on.body.config.security).toEqual({ panicMode: true });
    expect((await t.http.post('/api/license/validate').send({ key: license.key })).status).toBe(503);
    const logs = await t.http.get('/api/audit?resourceType=system').set('Cookie', admin.cookie);
    expect(logs.body.auditLogs.length).toBeGreaterThanOrEqual(2);
    const anonymous = await t.http.post('/api/admin/panic').send({ enabled: false });
    expect(anonymous.status).toBe(401);
  });
});

describe('public rate limit', () => {
  let t: TestApp;
  beforeAll(async () => { t = await buildTestApp({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } }); });
  afterAll(async () => { await t?.close(); });

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
    const res = await t.http.put('/api/admin/config').set(admin.headers).send({ rateLimit: { max: 50 } });
    expect(res.status).toBe(200);
    expect(res.body.config.rateLimit).toEqual({ enabled: true, windowMs: 60000, max: 50 });
    const license = await t.createLicense({});
    const after = await t.http.post('/api/license/validate').send({ key: license.key });
    expect(after.status).toBe(200);
    expect(after.headers['x-ratelimit-limit']).toBe('50');
    await t.http.put('/api/admin/config').set(admin.headers).send({ rateLimit: { enabled: false } });
    const unlimited = await t.http.post('/api/license/validate').send({ key: license.key });
    expect(unlimited.headers['x-ratelimit-limit']).toBeUndefined();
    const bad = await t.http.put('/api/admin/config').set(admin.headers).send({ rateLimit: { max: 0 } });
    expect(bad.status).toBe(400);
  });
});
