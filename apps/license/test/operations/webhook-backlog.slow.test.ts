import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { scaleRetrySchedule, verifyWebhookSignature, webhookRetrySchedule } from '@app/events';
import type { TestApp } from '../helpers.js';
import { buildAppWithQueue, eventually, sleep, startHttpRecorder, type RecordedRequest } from './peers.js';

const secret = 'whsec_backlog';
const signed = (request: RecordedRequest) =>
  verifyWebhookSignature({ header: String(request.headers['x-webhook-signature'] ?? ''), body: request.body, secret });

/** A real local receiver that answers 503 while `down`, and 204 otherwise, recording the requests it accepted. */
async function startSwitchableReceiver() {
  const state = { down: true };
  const accepted: RecordedRequest[] = [];
  const receiver = await startHttpRecorder((request, _index, res) => {
    if (state.down) {
      res.writeHead(503).end('maintenance');
      return;
    }
    accepted.push(request);
    res.writeHead(204).end();
  });
  return { receiver, state, accepted };
}

async function statusCounts(t: TestApp): Promise<Record<string, number>> {
  const { rows } = await t.database.pool.query(
    'SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status',
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

describe(`a webhook receiver that is down while 2,000 events queue, then comes back (${testDatabaseBackend()})`, () => {
  let app: Awaited<ReturnType<typeof buildAppWithQueue>>;
  let peer: Awaited<ReturnType<typeof startSwitchableReceiver>>;

  beforeAll(async () => {
    peer = await startSwitchableReceiver();
    // The real schedule stretched ten times (first retry after 100 s): when the receiver returns
    // no retry is due for more than 60 s, so only the release on the first success can bring the
    // backlog in time.
    app = await buildAppWithQueue(
      {
        WEBHOOK_URL: `${peer.receiver.url}/hooks`,
        WEBHOOK_SECRET: secret,
        WEBHOOK_EVENTS: 'LICENSE_CREATED',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      undefined,
      { webhookDelivery: { schedule: scaleRetrySchedule(webhookRetrySchedule(), 10) } },
    );
  });
  afterAll(async () => {
    await app?.close();
    await peer?.receiver.close();
  });

  it('gets all 2,000 and a fresh event fired after its return within 60 s of its return, each once by delivery id, each signed', async () => {
    const { t } = app;
    const events = 2000;
    await Promise.all(
      Array.from({ length: events }, (_, i) =>
        t.context.events.emit('LICENSE_CREATED', { licenseKey: `BACKLOG-${i}` }),
      ),
    );
    // Every delivery has failed at least once and waits for a retry (none has been given up).
    await eventually(
      async () => {
        const { rows } = await t.database.pool.query(
          'SELECT count(*)::int AS n FROM webhook_deliveries WHERE attempts = 0 OR claimed_until > now()',
        );
        return rows[0].n === 0;
      },
      120_000,
      250,
    );
    const waiting = await t.database.pool.query(
      "SELECT count(*)::int AS n, min(next_retry_at) AS first FROM webhook_deliveries WHERE status = 'pending' AND next_retry_at > now()",
    );
    expect(await statusCounts(t)).toEqual({ pending: events });
    expect(peer.accepted).toHaveLength(0);

    peer.state.down = false;
    const returned = Date.now();
    expect(new Date(waiting.rows[0].first).getTime() - returned).toBeGreaterThan(60_000);
    await t.context.events.emit('LICENSE_CREATED', { licenseKey: 'FRESH-after-return' });
    await eventually(
      () => new Set(peer.accepted.map((request) => request.headers['x-webhook-id'])).size >= events + 1,
      60_000,
      100,
    );
    const seconds = (Date.now() - returned) / 1000;
    const fresh = peer.accepted.findIndex((request) => request.body.includes('FRESH-after-return'));
    console.log(
      `[${testDatabaseBackend()}] ${waiting.rows[0].n} deliveries waiting (first retry due ${new Date(waiting.rows[0].first).getTime() - returned} ms after the return); ` +
        `${events + 1} delivered ${seconds.toFixed(1)} s after the return (${((events + 1) / seconds).toFixed(0)}/s); the fresh event was number ${fresh + 1} to arrive`,
    );

    expect(seconds).toBeLessThan(60);
    await sleep(500);
    const ids = peer.accepted.map((request) => String(request.headers['x-webhook-id']));
    expect(new Set(ids).size).toBe(events + 1);
    const keys = new Set(peer.accepted.map((request) => JSON.parse(request.body).data.licenseKey));
    expect(keys.size).toBe(events + 1);
    expect(peer.accepted.every(signed)).toBe(true);
    expect(await statusCounts(t)).toEqual({ delivered: events + 1 });
  }, 240_000);
});

describe(`a webhook receiver that comes back while no new event is sent (${testDatabaseBackend()})`, () => {
  let app: Awaited<ReturnType<typeof buildAppWithQueue>>;
  let peer: Awaited<ReturnType<typeof startSwitchableReceiver>>;
  // Test-compressed: production asks a waiting endpoint once a minute.
  const probeEveryMs = 1500;

  beforeAll(async () => {
    peer = await startSwitchableReceiver();
    // Stretched ten times: the first retry is 100 s away, so only a probe can find the return in time.
    app = await buildAppWithQueue(
      {
        WEBHOOK_URL: `${peer.receiver.url}/hooks`,
        WEBHOOK_SECRET: secret,
        WEBHOOK_EVENTS: 'LICENSE_CREATED',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      undefined,
      { webhookDelivery: { schedule: scaleRetrySchedule(webhookRetrySchedule(), 10), probeEveryMs } },
    );
  });
  afterAll(async () => {
    await app?.close();
    await peer?.receiver.close();
  });

  it('asks the endpoint with one delivery per probe period while it is down, and delivers the whole backlog within a period of its return', async () => {
    const { t } = app;
    const events = 50;
    await Promise.all(
      Array.from({ length: events }, (_, i) =>
        t.context.events.emit('LICENSE_CREATED', { licenseKey: `WAITING-${i}` }),
      ),
    );
    await eventually(
      async () => {
        const { rows } = await t.database.pool.query(
          'SELECT count(*)::int AS n FROM webhook_deliveries WHERE attempts = 0 OR claimed_until > now()',
        );
        return rows[0].n === 0;
      },
      60_000,
      100,
    );
    const attemptsWhileDown = async () =>
      (await t.database.pool.query('SELECT sum(attempts)::int AS n FROM webhook_deliveries')).rows[0].n as number;
    const before = await attemptsWhileDown();
    const requestsBefore = peer.receiver.requests.length;
    await sleep(probeEveryMs * 3);
    // Three periods down: about one probe each, never the whole backlog, and no probe counted
    // as an attempt (the first retry is 100 s away).
    const probes = peer.receiver.requests.length - requestsBefore;
    expect(probes).toBeGreaterThanOrEqual(2);
    expect(probes).toBeLessThanOrEqual(4);
    expect(await attemptsWhileDown()).toBe(before);
    expect(peer.accepted).toHaveLength(0);

    peer.state.down = false;
    const returned = Date.now();
    await eventually(
      () => new Set(peer.accepted.map((request) => request.headers['x-webhook-id'])).size >= events,
      30_000,
      50,
    );
    const seconds = (Date.now() - returned) / 1000;
    console.log(
      `[${testDatabaseBackend()}] no new event: ${events} waiting deliveries delivered ${seconds.toFixed(1)} s after the return (probe every ${probeEveryMs} ms)`,
    );
    expect(seconds).toBeLessThan((probeEveryMs * 2 + 2000) / 1000);
    expect(peer.accepted.every(signed)).toBe(true);
    // The receiver has answered the last one; its outcome is recorded a moment later.
    await eventually(async () => (await statusCounts(t)).delivered === events, 10_000, 50);
    expect(await statusCounts(t)).toEqual({ delivered: events });
  }, 120_000);
});

describe(`a webhook receiver down for longer than the whole retry schedule (${testDatabaseBackend()})`, () => {
  let app: Awaited<ReturnType<typeof buildAppWithQueue>>;
  let peer: Awaited<ReturnType<typeof startSwitchableReceiver>>;

  beforeAll(async () => {
    peer = await startSwitchableReceiver();
    // The real schedule, 50,000 times as fast: its 24 h 25 min take under 2 s.
    app = await buildAppWithQueue(
      {
        WEBHOOK_URL: `${peer.receiver.url}/hooks`,
        WEBHOOK_SECRET: secret,
        WEBHOOK_EVENTS: 'LICENSE_REVOKED',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      undefined,
      { webhookDelivery: { schedule: scaleRetrySchedule(webhookRetrySchedule(), 1 / 50_000) } },
    );
  });
  afterAll(async () => {
    await app?.close();
    await peer?.receiver.close();
  });

  it('keeps the delivery as failed after 33 attempts, lists it under ?status=failed, and POST redeliver delivers it once the receiver is up (audited)', async () => {
    const { t } = app;
    const admin = await t.admin();
    const license = await t.createLicense({});
    expect(
      (await t.http.post(`/api/licenses/${license._id}/revoke`).set(admin.headers).send({ reason: 'gone' })).status,
    ).toBe(200);

    const failed = await eventually(async () => {
      const res = await t.http.get('/api/webhooks/deliveries?status=failed').set(admin.headers);
      return res.body.deliveries?.find(
        (delivery: { payload: { data: { licenseKey: string } } }) => delivery.payload.data.licenseKey === license.key,
      );
    }, 30_000);
    expect(failed).toMatchObject({
      url: `${peer.receiver.url}/hooks`,
      event: 'LICENSE_REVOKED',
      status: 'failed',
      attempts: 33,
      lastResponseCode: 503,
      lastError: 'Receiver answered 503',
      nextRetryAt: null,
      deliveredAt: null,
      payload: { event: 'LICENSE_REVOKED', data: { licenseKey: license.key, reason: 'gone' } },
    });
    expect(peer.receiver.requests.filter((request) => request.headers['x-webhook-id'] === failed._id)).toHaveLength(33);
    await sleep(300);
    expect(peer.receiver.requests.filter((request) => request.headers['x-webhook-id'] === failed._id)).toHaveLength(33);

    const list = await t.http.get('/api/webhooks/deliveries?status=failed&limit=1&skip=0').set(admin.headers);
    expect(list.body).toMatchObject({ success: true, count: 1, total: 1 });
    expect((await t.http.get('/api/webhooks/deliveries?status=delivered').set(admin.headers)).body.deliveries).toEqual(
      [],
    );
    expect((await t.http.get('/api/webhooks/deliveries?status=lost').set(admin.headers)).status).toBe(400);
    expect((await t.http.get('/api/webhooks/deliveries')).status).toBe(401);
    expect((await t.http.post(`/api/webhooks/deliveries/${failed._id}/redeliver`)).status).toBe(401);
    expect(
      (await t.http.post(`/api/webhooks/deliveries/${failed._id}/redeliver`).set('Cookie', admin.cookie)).status,
    ).toBe(403);
    expect(
      (await t.http.post('/api/webhooks/deliveries/00000000-0000-4000-8000-000000000000/redeliver').set(admin.headers))
        .body,
    ).toEqual({ success: false, error: 'Delivery not found' });

    peer.state.down = false;
    const redelivered = await t.http.post(`/api/webhooks/deliveries/${failed._id}/redeliver`).set(admin.headers);
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.delivery).toMatchObject({ _id: failed._id, status: 'pending', attempts: 0 });
    const arrived = await eventually(() =>
      peer.accepted.find((request) => request.headers['x-webhook-id'] === failed._id),
    );
    expect(signed(arrived)).toBe(true);
    expect(JSON.parse(arrived.body)).toMatchObject({ event: 'LICENSE_REVOKED', data: { licenseKey: license.key } });
    const delivered = await eventually(async () => {
      const res = await t.http.get('/api/webhooks/deliveries?status=delivered').set(admin.headers);
      return res.body.deliveries.find((delivery: { _id: string }) => delivery._id === failed._id);
    });
    expect(delivered).toMatchObject({
      attempts: 1,
      lastResponseCode: 204,
      lastError: null,
      deliveredAt: expect.any(String),
    });
    const audit = await t.database.pool.query(
      'SELECT action, resource_type, changes FROM audit_logs WHERE resource_id = $1',
      [failed._id],
    );
    expect(audit.rows).toEqual([
      {
        action: 'update',
        resource_type: 'notification',
        changes: expect.objectContaining({ after: { status: 'pending', redelivered: true } }),
      },
    ]);
  }, 60_000);
});
