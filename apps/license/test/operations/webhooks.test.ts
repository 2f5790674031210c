import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaleRetrySchedule, verifyWebhookSignature, webhookRetrySchedule } from '@app/events';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, migrationsFolder, type TestApp } from '../helpers.js';
import {
  buildAppWithQueue,
  eventually,
  sleep,
  startHttpRecorder,
  type HttpRecorder,
  type RecordedRequest,
} from './peers.js';

const secret = 'whsec_webhooks';
const signed = (request: RecordedRequest) =>
  verifyWebhookSignature({ header: String(request.headers['x-webhook-signature'] ?? ''), body: request.body, secret });
const bodyOf = (request: RecordedRequest) =>
  JSON.parse(request.body) as {
    event: string;
    timestamp: string;
    data: { licenseKey?: string } & Record<string, unknown>;
  };
/** The real schedule (10 s, 20 s ... hourly, 24 h 25 min in all) 100 times as fast: 100 ms, 200 ms ... */
const fastSchedule = scaleRetrySchedule(webhookRetrySchedule(), 0.01);

async function deliveryRow(t: TestApp, id: string) {
  const { rows } = await t.database.pool.query('SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
  return rows[0];
}

describe(`webhooks of the license service (${testDatabaseBackend()})`, () => {
  let app: Awaited<ReturnType<typeof buildAppWithQueue>>;
  let t: TestApp;
  let receiver: HttpRecorder;
  /** Per license key: how the receiver answers the n-th delivery about it (default 200). */
  const plans = new Map<string, (attempt: number, res: ServerResponse) => boolean>();

  beforeAll(async () => {
    receiver = await startHttpRecorder((request, _index, res) => {
      const key = String(bodyOf(request).data.licenseKey ?? '');
      const attempt = receiver.requests.filter(
        (other) => String(bodyOf(other).data.licenseKey ?? '') === key && bodyOf(other).event === bodyOf(request).event,
      ).length;
      if (plans.get(key)?.(attempt, res)) return;
      res.writeHead(200).end('ok');
    });
    app = await buildAppWithQueue(
      {
        WEBHOOK_URL: `${receiver.url}/hooks`,
        WEBHOOK_SECRET: secret,
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      undefined,
      { webhookDelivery: { schedule: fastSchedule } },
    );
    t = app.t;
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const deliveries = (event: string, licenseKey: string) =>
    receiver.requests.filter(
      (request) => bodyOf(request).event === event && bodyOf(request).data.licenseKey === licenseKey,
    );

  it('sends LICENSE_CREATED, LICENSE_REVOKED and NEW_REQUEST_BLOCKED from the operations that cause them, signed, with a delivery id, as { event, timestamp, data }', async () => {
    const admin = await t.admin();
    const product = await t.createProduct({ licensePrefix: 'HOOK' });
    const customer = await t.createCustomer();
    const created = await t.http
      .post('/api/licenses')
      .set(admin.headers)
      .send({ product: product._id, customer: customer._id, ipLimit: 1, expiresAt: '2030-01-01T00:00:00.000Z' });
    expect(created.status).toBe(201);
    const license = created.body.license;

    const [createdHook] = await eventually(() => {
      const found = deliveries('LICENSE_CREATED', license.key);
      return found.length ? found : undefined;
    });
    expect(signed(createdHook!)).toBe(true);
    expect(createdHook!.headers['content-type']).toBe('application/json');
    expect(createdHook!.headers['x-webhook-event']).toBe('LICENSE_CREATED');
    expect(createdHook!.path).toBe('/hooks');
    const payload = bodyOf(createdHook!);
    expect(Object.keys(payload)).toEqual(['event', 'timestamp', 'data']);
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(payload.data).toEqual({
      licenseKey: license.key,
      licenseId: license._id,
      productId: product._id,
      customerId: customer._id,
      licenseType: 'fixed',
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    // The delivery id header names the stored delivery, which is recorded as delivered.
    const id = String(createdHook!.headers['x-webhook-id']);
    const row = await eventually(async () => {
      const found = await deliveryRow(t, id);
      return found?.status === 'delivered' ? found : undefined;
    });
    expect(row).toMatchObject({
      url: `${receiver.url}/hooks`,
      event: 'LICENSE_CREATED',
      payload: createdHook!.body,
      attempts: 1,
      last_response_code: 200,
      last_error: null,
      next_retry_at: null,
    });
    expect(row.delivered_at).toBeInstanceOf(Date);

    expect((await t.http.post('/api/license/validate').send({ key: license.key, ip: '10.2.0.1' })).status).toBe(200);
    expect((await t.http.post('/api/license/validate').send({ key: license.key, ip: '10.2.0.2' })).status).toBe(403);
    const [blocked] = await eventually(() => {
      const found = deliveries('NEW_REQUEST_BLOCKED', license.key);
      return found.length ? found : undefined;
    });
    expect(signed(blocked!)).toBe(true);
    expect(bodyOf(blocked!).data).toMatchObject({
      licenseKey: license.key,
      licenseId: license._id,
      reason: 'IP limit exceeded',
      ip: '10.2.0.2',
      blockedCount: 1,
    });

    const revoked = await t.http
      .post(`/api/licenses/${license._id}/revoke`)
      .set(admin.headers)
      .send({ reason: 'chargeback' });
    expect(revoked.status).toBe(200);
    const [revokedHook] = await eventually(() => {
      const found = deliveries('LICENSE_REVOKED', license.key);
      return found.length ? found : undefined;
    });
    expect(signed(revokedHook!)).toBe(true);
    expect(bodyOf(revokedHook!).data).toEqual({
      licenseKey: license.key,
      licenseId: license._id,
      reason: 'chargeback',
    });
  });

  it('a receiver down for the first two attempts (500, then a dropped connection) gets the third: same body, same delivery id, valid signature; the record keeps the attempts', async () => {
    const license = await t.createLicense({});
    // The license was created before the plan: re-emit through an operation that happens after it.
    plans.set(license.key, (attempt, res) => {
      if (attempt === 1) {
        res.writeHead(500).end('down');
        return true;
      }
      if (attempt === 2) {
        res.socket?.destroy();
        return true;
      }
      return false;
    });
    const admin = await t.admin();
    await t.http.post(`/api/licenses/${license._id}/revoke`).set(admin.headers).send({});
    const attempts = await eventually(() => {
      const found = deliveries('LICENSE_REVOKED', license.key);
      return found.length >= 3 ? found : undefined;
    }, 25_000);
    await sleep(1000);
    expect(deliveries('LICENSE_REVOKED', license.key)).toHaveLength(3);
    expect(new Set(attempts.map((request) => request.body)).size).toBe(1);
    expect(new Set(attempts.map((request) => request.headers['x-webhook-id'])).size).toBe(1);
    expect(signed(attempts[2]!)).toBe(true);
    const row = await eventually(async () => {
      const found = await deliveryRow(t, String(attempts[0]!.headers['x-webhook-id']));
      return found?.status === 'delivered' ? found : undefined;
    });
    expect(row).toMatchObject({ attempts: 3, last_response_code: 200, last_error: null });
  }, 40_000);

  it('a receiver that answers 302 to another receiver: the redirect is not followed, the second receiver never gets it, and the attempt counts as failed', async () => {
    const second = await startHttpRecorder();
    const redirecting = await startHttpRecorder((_request, _index, res) => {
      res.writeHead(302, { Location: `${second.url}/stolen` }).end();
    });
    try {
      // An automated action's webhook to the redirecting receiver, run by hand.
      const admin = await t.admin();
      const action = await t.http
        .post('/api/automated-actions')
        .set(admin.headers)
        .send({
          name: 'Redirected hook',
          trigger: { event: 'custom' },
          actions: [{ type: 'webhook', params: { url: `${redirecting.url}/hook` } }],
        });
      expect(action.status).toBe(201);
      expect(
        (
          await t.http
            .post(`/api/automated-actions/${action.body.action._id}/execute`)
            .set(admin.headers)
            .send({ context: {} })
        ).status,
      ).toBe(200);
      await eventually(() => redirecting.requests.length >= 1, 20_000);
      const id = String(redirecting.requests[0]!.headers['x-webhook-id']);
      await eventually(async () => (await deliveryRow(t, id))?.last_response_code === 302);
      const row = await deliveryRow(t, id);
      expect(row).toMatchObject({
        status: 'pending',
        last_response_code: 302,
        last_error: 'Receiver answered 302; redirects are not followed',
      });
      expect(row.attempts).toBeGreaterThanOrEqual(1);
      await eventually(() => redirecting.requests.length >= 2, 20_000);
      expect(second.requests).toHaveLength(0);
    } finally {
      await redirecting.close();
      await second.close();
    }
  }, 30_000);
});

describe(`webhooks without a job queue (${testDatabaseBackend()})`, () => {
  it('are still sent, once, straight from the process', async () => {
    const receiver = await startHttpRecorder();
    const t = await buildTestApp({
      env: { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret, WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    try {
      const license = await t.createLicense({});
      const [hook] = await eventually(() => {
        const found = receiver.requests.filter((request) => request.body.includes(license.key));
        return found.length ? found : undefined;
      });
      expect(bodyOf(hook!)).toMatchObject({ event: 'LICENSE_CREATED', data: { licenseKey: license.key } });
      expect(signed(hook!)).toBe(true);
      await sleep(500);
      expect(receiver.requests.filter((request) => request.body.includes(license.key))).toHaveLength(1);
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});

describe(`webhook deliveries across a restart (${testDatabaseBackend()})`, () => {
  it('deliveries stored while the service is stopped are sent after it starts again', async () => {
    let up = false;
    const receiver = await startHttpRecorder((_request, _index, res) => {
      if (up) res.writeHead(204).end();
      else res.writeHead(503).end('maintenance');
    });
    const database = await createTestDatabase(migrationsFolder);
    const env = {
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: secret,
      WEBHOOK_EVENTS: 'LICENSE_CREATED',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    // 2 s before the first retry, so the first process stops before it.
    const schedule = scaleRetrySchedule(webhookRetrySchedule(), 0.2);
    try {
      const first = await buildAppWithQueue(env, database, { webhookDelivery: { schedule } });
      const license = await first.t.createLicense({});
      await eventually(() => receiver.requests.length >= 1);
      await first.close();
      const failedWhileUp = receiver.requests.length;

      up = true;
      await sleep(300);
      expect(receiver.requests.length).toBe(failedWhileUp);
      const second = await buildAppWithQueue(env, database, { webhookDelivery: { schedule } });
      try {
        await eventually(() => receiver.requests.length > failedWhileUp, 25_000);
        const delivered = receiver.requests.at(-1)!;
        expect(bodyOf(delivered)).toMatchObject({ event: 'LICENSE_CREATED', data: { licenseKey: license.key } });
        expect(delivered.body).toBe(receiver.requests[0]!.body);
        expect(signed(delivered)).toBe(true);
        await sleep(1000);
        expect(receiver.requests.filter((request) => request.body === delivered.body).length).toBe(failedWhileUp + 1);
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
      await receiver.close();
    }
  }, 60_000);
});
