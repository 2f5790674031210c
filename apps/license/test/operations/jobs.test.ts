import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@app/events';
import { testDatabaseBackend } from '@app/db/testing';
import type { TestApp } from '../helpers.js';
import { buildAppWithQueue, drainJobs, eventually, sleep, startOutsidePeers } from './peers.js';

const secret = 'whsec_jobs';
const day = 86_400_000;
const accountSid = `AC${'b'.repeat(32)}`;

let app: Awaited<ReturnType<typeof buildAppWithQueue>>;
let t: TestApp;
let peers: Awaited<ReturnType<typeof startOutsidePeers>>;

beforeAll(async () => {
  peers = await startOutsidePeers();
  app = await buildAppWithQueue({
    WEBHOOK_URL: peers.receiver.url,
    WEBHOOK_SECRET: secret,
    WEBHOOK_EVENTS: 'LICENSE_EXPIRED,ANOMALY_DETECTED',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ANOMALY_MAX_IPS: '3',
    ANOMALY_MAX_FAILURES: '4',
    ANOMALY_WINDOW_MINUTES: '60',
    EXPIRY_WARNING_DAYS: '7',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(peers.smtp.port),
    NOTIFY_EMAIL_TO: 'ops@example.com',
    TWILIO_ACCOUNT_SID: accountSid,
    TWILIO_AUTH_TOKEN: 'tok',
    TWILIO_FROM: '+15550000001',
    TWILIO_BASE_URL: peers.twilioApi.url,
    NOTIFY_SMS_TO: '+15559990000',
    TELEGRAM_BOT_TOKEN: '9:bot',
    TELEGRAM_CHAT_ID: '9',
    TELEGRAM_API_URL: peers.telegramApi.url,
    NOTIFY_LICENSE_EXPIRING: 'email',
    NOTIFY_LICENSE_VIOLATION: 'telegram',
    NOTIFY_ANOMALY: 'sms,telegram',
  });
  t = app.t;
  // Let the start-up runs of the scans finish, so each test decides when a scan runs.
  await drainJobs(t.database, 'license-%');
});
afterAll(async () => {
  await app?.close();
  await peers?.close();
});

const hooks = (event: string) =>
  peers.receiver.requests.map((request) => JSON.parse(request.body)).filter((body) => body.event === event);
const telegramTexts = () =>
  peers.telegramApi.requests.map((request) => new URLSearchParams(request.body).get('text') ?? '');
const smsBodies = () => peers.twilioApi.requests.map((request) => new URLSearchParams(request.body).get('Body') ?? '');

/** Runs a scheduled job through the queue, as the cron would, and waits until pg-boss has finished it. */
async function runJob(name: string) {
  await app.queue.runNow(name);
  await drainJobs(t.database, name);
}

describe(`scheduled scans (${testDatabaseBackend()})`, () => {
  it('the expiry scan emits LICENSE_EXPIRED once per expired license, with licenseKey, expiresAt, customerId, productId', async () => {
    const customer = await t.createCustomer();
    const product = await t.createProduct({ licensePrefix: 'EXP' });
    const expired = await t.createLicense({
      product: product._id,
      customer: customer._id,
      expiresAt: new Date(Date.now() - day),
    });
    const current = await t.createLicense({ product: product._id, expiresAt: new Date(Date.now() + 30 * day) });
    const revoked = await t.createLicense({ product: product._id, expiresAt: new Date(Date.now() - day) });
    await t.database.pool.query('UPDATE licenses SET revoked = true WHERE id = $1', [revoked._id]);
    const admin = await t.admin();
    const automation = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({ name: 'Expired', trigger: { event: 'license_expired' }, actions: [{ type: 'custom', params: {} }] });

    await runJob('license-expiry-scan');
    const expiredHooks = await eventually(() => {
      const found = hooks('LICENSE_EXPIRED').filter((body) => body.data.licenseKey === expired.key);
      return found.length ? found : undefined;
    });
    expect(expiredHooks[0].data).toEqual({
      licenseKey: expired.key,
      expiresAt: expired.expiresAt,
      customerId: customer._id,
      productId: product._id,
      licenseId: expired._id,
    });
    const raw = peers.receiver.requests.find((request) => request.body.includes(expired.key))!;
    expect(verifyWebhookSignature({ header: String(raw.headers['x-webhook-signature']), body: raw.body, secret })).toBe(
      true,
    );

    await runJob('license-expiry-scan');
    await sleep(1000);
    const keys = hooks('LICENSE_EXPIRED').map((body) => body.data.licenseKey);
    expect(keys.filter((key) => key === expired.key)).toHaveLength(1);
    expect(keys).not.toContain(current.key);
    expect(keys).not.toContain(revoked.key);
    await drainJobs(t.database, 'automation-trigger');
    const after = await t.http.get(`/api/automated-actions/${automation.body.action._id}`).set(admin.headers);
    expect(after.body.action.executionCount).toBe(1);
    // Extended by an admin and expired again: that is a new expiry, announced once more.
    const newExpiry = new Date(Date.now() - 100).toISOString();
    expect(
      (await t.http.put(`/api/licenses/${expired._id}`).set(admin.headers).send({ expiresAt: newExpiry })).status,
    ).toBe(200);
    await runJob('license-expiry-scan');
    await eventually(
      () => hooks('LICENSE_EXPIRED').filter((body) => body.data.licenseKey === expired.key).length === 2,
    );
    expect(hooks('LICENSE_EXPIRED').filter((body) => body.data.licenseKey === expired.key)[1].data.expiresAt).toBe(
      newExpiry,
    );
    // Routed to email (NOTIFY_LICENSE_EXPIRING=email) through the queue.
    await eventually(() => peers.smtp.mails.some((mail) => mail.raw.includes(`License expired: ${expired.key}`)));
  }, 40_000);

  it('trial conversion turns a trial with automatic conversion into its full type instead of expiring it', async () => {
    const converting = await t.createLicense({
      licenseType: 'trial',
      autoConvert: true,
      convertDurationDays: 30,
      expiresAt: new Date(Date.now() - 60_000),
    });
    const ending = await t.createLicense({ licenseType: 'trial', expiresAt: new Date(Date.now() - 60_000) });
    await runJob('license-expiry-scan');
    const { rows } = await t.database.pool.query(
      'SELECT license_type, expires_at, converted_at FROM licenses WHERE id = $1',
      [converting._id],
    );
    expect(rows[0].license_type).toBe('fixed');
    expect(rows[0].converted_at).not.toBeNull();
    expect(Math.abs(new Date(rows[0].expires_at).getTime() - (Date.now() + 30 * day))).toBeLessThan(60_000);
    await eventually(() => hooks('LICENSE_EXPIRED').some((body) => body.data.licenseKey === ending.key));
    await sleep(500);
    expect(hooks('LICENSE_EXPIRED').some((body) => body.data.licenseKey === converting.key)).toBe(false);
    expect((await t.http.post('/api/license/validate').send({ key: converting.key, ip: '10.3.0.1' })).status).toBe(200);
  }, 30_000);

  it('the anomaly scan reports a license used from too many IPs and an IP with many failed validations, once per window', async () => {
    const license = await t.createLicense({});
    for (const ip of ['10.4.0.1', '10.4.0.2', '10.4.0.3', '10.4.0.4', '10.4.0.5']) {
      expect((await t.http.post('/api/license/validate').send({ key: license.key, ip })).status).toBe(200);
    }
    for (let i = 0; i < 6; i += 1) {
      expect((await t.http.post('/api/license/validate').send({ key: `TEST-guess${i}`, ip: '10.66.6.6' })).status).toBe(
        400,
      );
    }
    const admin = await t.admin();
    const automation = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Suspend on anomaly',
        trigger: { event: 'anomaly_detected', conditions: { kind: 'many_ips' } },
        actions: [{ type: 'suspend_license', params: { reason: 'anomaly' } }],
      });

    await runJob('license-anomaly-scan');
    const manyIps = await eventually(() =>
      hooks('ANOMALY_DETECTED').find((body) => body.data.licenseKey === license.key),
    );
    expect(manyIps.data).toEqual({
      kind: 'many_ips',
      licenseKey: license.key,
      licenseId: license._id,
      customerId: null,
      productId: license.product._id,
      uniqueIps: 5,
      threshold: 3,
      windowMinutes: 60,
    });
    const failures = await eventually(() => hooks('ANOMALY_DETECTED').find((body) => body.data.ip === '10.66.6.6'));
    expect(failures.data).toMatchObject({
      kind: 'failed_validations',
      ip: '10.66.6.6',
      failedValidations: 6,
      threshold: 4,
    });
    await drainJobs(t.database, 'automation-trigger');
    const { rows } = await t.database.pool.query('SELECT suspended, suspend_reason FROM licenses WHERE id = $1', [
      license._id,
    ]);
    expect(rows[0]).toEqual({ suspended: true, suspend_reason: 'anomaly' });

    await runJob('license-anomaly-scan');
    await sleep(1000);
    expect(hooks('ANOMALY_DETECTED').filter((body) => body.data.licenseKey === license.key)).toHaveLength(1);
    expect(hooks('ANOMALY_DETECTED').filter((body) => body.data.ip === '10.66.6.6')).toHaveLength(1);
    await drainJobs(t.database, 'automation-trigger');
    const after = await t.http.get(`/api/automated-actions/${automation.body.action._id}`).set(admin.headers);
    expect(after.body.action.executionCount).toBe(1);
    // NOTIFY_ANOMALY=sms,telegram
    await eventually(() => smsBodies().some((body) => body.includes('Anomaly detected: many_ips')));
    await eventually(() => telegramTexts().some((text) => text.includes('Anomaly detected: failed_validations')));
  }, 40_000);

  it('expiry warnings email licenses expiring within EXPIRY_WARNING_DAYS once per expiry', async () => {
    const soon = await t.createLicense({ expiresAt: new Date(Date.now() + 3 * day) });
    const later = await t.createLicense({ expiresAt: new Date(Date.now() + 30 * day) });
    await runJob('license-expiry-warnings');
    await eventually(() => peers.smtp.mails.some((mail) => mail.raw.includes(`License expiring: ${soon.key}`)));
    await runJob('license-expiry-warnings');
    await sleep(1000);
    expect(peers.smtp.mails.filter((mail) => mail.raw.includes(`License expiring: ${soon.key}`))).toHaveLength(1);
    expect(peers.smtp.mails.some((mail) => mail.raw.includes(later.key))).toBe(false);
    expect(peers.smtp.mails.at(-1)!.to).toEqual(['ops@example.com']);
  }, 30_000);
});

describe(`notifications routed by kind (${testDatabaseBackend()})`, () => {
  it('a blocked validation (license violation) goes to the channels of NOTIFY_LICENSE_VIOLATION only, one alert for a burst', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    const smsBefore = peers.twilioApi.requests.length;
    await t.http.post('/api/license/validate').send({ key: license.key, ip: '10.5.0.1', hwid: 'one' });
    for (const hwid of ['two', 'three', 'four']) {
      expect(
        (await t.http.post('/api/license/validate').send({ key: license.key, ip: '10.5.0.1', hwid })).body.error,
      ).toBe('HWID limit exceeded');
    }
    const text = await eventually(() => telegramTexts().find((candidate) => candidate.includes(license.key)));
    expect(text).toContain('License violation: HWID limit exceeded');
    expect(new URLSearchParams(peers.telegramApi.requests.at(-1)!.body).get('chat_id')).toBe('9');
    await sleep(1500);
    expect(telegramTexts().filter((candidate) => candidate.includes(license.key))).toHaveLength(1);
    expect(peers.twilioApi.requests.length).toBe(smsBefore);
    expect(peers.smtp.mails.some((mail) => mail.raw.includes(license.key))).toBe(false);
    // No violation_threshold action exists here: the blocked validations queued no trigger jobs.
    const triggers = await t.database.pool.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'automation-trigger' AND data->>'event' = 'violation_threshold'`,
    );
    expect(triggers.rows[0].n).toBe(0);
    // WEBHOOK_EVENTS=LICENSE_EXPIRED,ANOMALY_DETECTED: the other events are not sent.
    expect(hooks('NEW_REQUEST_BLOCKED')).toEqual([]);
    expect(hooks('LICENSE_CREATED')).toEqual([]);
    expect(new Set(peers.receiver.requests.map((request) => JSON.parse(request.body).event))).toEqual(
      new Set(['LICENSE_EXPIRED', 'ANOMALY_DETECTED']),
    );
  });
});
