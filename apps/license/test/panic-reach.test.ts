import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { testRateLimitStore } from '@app/rate-limit/testing';
import { createLicenseLogger } from '../src/common/logger.js';
import { ADMIN_SETTINGS_LIMIT, PANIC_SWITCH_LIMIT } from '../src/rate-limits/rate-limits.js';
import { buildTestApp, type TestApp } from './helpers.js';

// Redis when REDIS_URL is set (the PostgreSQL run), the memory store otherwise.
const store = testRateLimitStore();
afterAll(async () => {
  await store.close();
});

/** The app's log lines at info and above, parsed. */
function logCapture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: createLicenseLogger({ level: 'info', destination }), lines };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe(`the panic switch stays in reach (${testDatabaseBackend()}, ${store.kind} store)`, () => {
  const log = logCapture();
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ logger: log.logger, redis: store.redis });
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(() => {
    log.lines.length = 0;
  });

  it('the probe: after 300 reads of the panic state, and the settings budget spent, the admin still flips the switch', async () => {
    const admin = await t.admin();
    for (let i = 0; i < 300; i++) {
      const read = await t.http.get('/api/admin/panic').set('Cookie', admin.cookie);
      expect(read.status).toBe(200);
    }
    // Spend the settings budget elsewhere too (the configuration's reads).
    let configStatus = 200;
    for (let i = 0; i <= ADMIN_SETTINGS_LIMIT.limit && configStatus === 200; i++)
      configStatus = (await t.http.get('/api/admin/config').set('Cookie', admin.cookie)).status;
    expect(configStatus).toBe(429);

    expect((await t.http.get('/api/admin/panic').set('Cookie', admin.cookie)).body).toEqual({
      success: true,
      panicMode: false,
    });
    const on = await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: true });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ success: true, panicMode: true });
    expect(on.headers['x-ratelimit-limit']).toBe(String(PANIC_SWITCH_LIMIT.limit));
    // The console's page that holds the switch, and its form, are open too.
    const page = await t.http.get('/settings').set('Cookie', admin.cookie);
    expect(page.status).toBe(200);
    const form = await t.http
      .post('/settings/panic')
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken, enabled: 'off' });
    expect(form.status).toBe(303);
    expect((await t.http.get('/api/admin/panic').set('Cookie', admin.cookie)).body.panicMode).toBe(false);
  });

  it('refusals in panic mode write at most one info line each, no error and no stack', async () => {
    const admin = await t.admin();
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id });
    await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: true });
    await settled();
    log.lines.length = 0;

    const refused = [
      await t.http.get('/api/license/public-key'),
      await t.http.post('/api/license/validate').send({ key: license.key }),
      await t.http.post('/api/license/machines/activate').send({ key: license.key, fingerprint: 'panic-fp' }),
      await t.http.get('/api/customer/licenses/stats').set('Cookie', session.cookie),
      await t.http.get(`/api/customer/licenses/${license._id}`).set('Cookie', session.cookie),
    ];
    expect(refused.map((res) => res.status)).toEqual([503, 503, 503, 503, 503]);
    await settled();
    expect(log.lines.length).toBeLessThanOrEqual(refused.length);
    // The customer API's refusals are request-logged (the public routes are not logged at all).
    expect(log.lines.filter((line) => line.status === 503).length).toBe(2);
    for (const line of log.lines) {
      expect(line.level).toBe(30);
      expect(JSON.stringify(line)).not.toContain('stack');
      expect(line.err).toBeUndefined();
    }
    await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: false });
  });
});
