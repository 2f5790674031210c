import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import type { WebhookLookup } from '@app/events';
import { buildTestApp, type TestApp } from '../helpers.js';
import { eventually, sleep, startHttpRecorder, type HttpRecorder } from './peers.js';

/**
 * DNS is injected (the lookup the delivery's sockets use): `rebinding.example.test` answers a
 * public address the first time it is asked and loopback after, as a DNS-rebinding attacker's
 * name would (`rebinding6.example.test` the same in IPv6); `hooks.example.test` is public; `receiver.example.test` is loopback.
 */
let rebindingAsked = 0;
let rebinding6Asked = 0;
const lookup: WebhookLookup = (hostname) => {
  const answer = (address: string) =>
    Promise.resolve<LookupAddress[]>([{ address, family: address.includes(':') ? 6 : 4 }]);
  if (hostname === 'hooks.example.test') return answer('93.184.215.14');
  if (hostname === 'receiver.example.test') return answer('127.0.0.1');
  if (hostname === 'rebinding.example.test') return answer(rebindingAsked++ === 0 ? '93.184.215.14' : '127.0.0.1');
  // The same, rebinding to loopback written as an IPv4-compatible IPv6 address (`[::127.0.0.1]`).
  if (hostname === 'rebinding6.example.test')
    return answer(rebinding6Asked++ === 0 ? '2606:4700:4700::1111' : '::7f00:1');
  return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
};

describe(`outgoing webhook URLs with WEBHOOK_ALLOW_PRIVATE=false (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let receiver: HttpRecorder;

  beforeAll(async () => {
    receiver = await startHttpRecorder();
    // WEBHOOK_URL names the real local receiver through `localhost`: configured, but refused at delivery.
    t = await buildTestApp({
      env: {
        WEBHOOK_URL: `http://localhost:${receiver.port}/hooks`,
        WEBHOOK_EVENTS: 'LICENSE_CREATED',
        WEBHOOK_ALLOW_PRIVATE: 'false',
      },
      webhookDelivery: { lookup },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const actionWithHook = (url: string) => ({
    name: 'Hook',
    trigger: { event: 'custom' },
    actions: [{ type: 'webhook', params: { url } }],
  });
  const deliveryTo = async (url: string) =>
    (await t.database.pool.query('SELECT * FROM webhook_deliveries WHERE url = $1', [url])).rows[0];

  it.each([
    'http://127.0.0.1',
    'http://localhost:5432',
    'http://169.254.169.254/latest',
    'http://[::1]/',
    'http://10.0.0.1',
    'http://0.0.0.0',
    'http://172.16.0.1/',
    'http://192.168.0.10/',
    'http://100.64.0.1/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://224.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://receiver.example.test/',
    'ftp://hooks.example.test/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[fec0::1]/',
    'http://[2002:a9fe:a9fe::]/',
  ])('saving an automated action with a webhook to %s answers 400 Webhook URL not allowed', async (url) => {
    const admin = await t.admin();
    const res = await t.http.post('/api/automated-actions').set(admin.headers).send(actionWithHook(url));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Webhook URL not allowed' });
  });

  it('updating an action to such a URL is refused too, and the action keeps its public URL', async () => {
    const admin = await t.admin();
    const created = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send(actionWithHook('https://hooks.example.test/x'));
    expect(created.status).toBe(201);
    const id = created.body.action._id;
    const res = await t.http
      .put(`/api/automated-actions/${id}`)
      .set(admin.headers)
      .send({ actions: [{ type: 'webhook', params: { url: 'http://169.254.169.254/latest' } }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Webhook URL not allowed');
    const kept = await t.http.get(`/api/automated-actions/${id}`).set(admin.headers);
    expect(kept.body.action.actions[0].params.url).toBe('https://hooks.example.test/x');
  });

  it('a configured WEBHOOK_URL to localhost is refused at delivery: failed at once with the reason, never retried, the receiver gets nothing', async () => {
    const license = await t.createLicense({});
    const url = `http://localhost:${receiver.port}/hooks`;
    const row = await eventually(async () => {
      const { rows } = await t.database.pool.query(
        'SELECT * FROM webhook_deliveries WHERE url = $1 AND payload LIKE $2',
        [url, `%${license.key}%`],
      );
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    expect(row).toMatchObject({ attempts: 1, next_retry_at: null, last_response_code: null });
    expect(row.last_error).toBe('Webhook URL not allowed: host localhost is local');
    await sleep(300);
    expect((await deliveryTo(url)).attempts).toBe(1);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a name that resolved to a public address when saved and to loopback at delivery (DNS rebinding) is refused at delivery', async () => {
    const admin = await t.admin();
    const url = `http://rebinding.example.test:${receiver.port}/steal`;
    const created = await t.http.post('/api/automated-actions').set(admin.headers).send(actionWithHook(url));
    expect(created.status).toBe(201);
    const run = await t.http
      .post(`/api/automated-actions/${created.body.action._id}/execute`)
      .set(admin.headers)
      .send({ context: {} });
    expect(run.body.result.success).toBe(true);
    const row = await eventually(async () => {
      const found = await deliveryTo(url);
      return found?.status === 'failed' ? found : undefined;
    });
    expect(row.last_error).toBe('Webhook URL not allowed: host rebinding.example.test resolves to 127.0.0.1');
    expect(rebindingAsked).toBeGreaterThanOrEqual(2);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a name that rebinds to ::7f00:1 (loopback written as IPv6) is refused at delivery, failed at once and never retried', async () => {
    const admin = await t.admin();
    const url = `http://rebinding6.example.test:${receiver.port}/steal`;
    const created = await t.http.post('/api/automated-actions').set(admin.headers).send(actionWithHook(url));
    expect(created.status).toBe(201);
    const run = await t.http
      .post(`/api/automated-actions/${created.body.action._id}/execute`)
      .set(admin.headers)
      .send({ context: {} });
    expect(run.body.result.success).toBe(true);
    const row = await eventually(async () => {
      const found = await deliveryTo(url);
      return found?.status === 'failed' ? found : undefined;
    });
    expect(row).toMatchObject({
      attempts: 1,
      next_retry_at: null,
      last_error: 'Webhook URL not allowed: host rebinding6.example.test resolves to ::7f00:1',
    });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe(`a configured WEBHOOK_URL to [::127.0.0.1] (${testDatabaseBackend()})`, () => {
  it('is refused at delivery: failed at once with the reason, never retried', async () => {
    const url = 'http://[::127.0.0.1]:9/hooks';
    const t = await buildTestApp({
      env: { WEBHOOK_URL: url, WEBHOOK_EVENTS: 'LICENSE_CREATED', WEBHOOK_ALLOW_PRIVATE: 'false' },
    });
    try {
      const license = await t.createLicense({});
      const row = await eventually(async () => {
        const { rows } = await t.database.pool.query('SELECT * FROM webhook_deliveries WHERE payload LIKE $1', [
          `%${license.key}%`,
        ]);
        return rows[0]?.status === 'failed' ? rows[0] : undefined;
      });
      expect(row).toMatchObject({ url, attempts: 1, next_retry_at: null, last_response_code: null });
      expect(row.last_error).toBe('Webhook URL not allowed: address ::7f00:1 is not public');
    } finally {
      await t.close();
    }
  });
});
