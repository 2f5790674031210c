import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@app/events';
import { testDatabaseBackend } from '@app/db/testing';
import type { TestApp } from '../helpers.js';
import { buildAppWithQueue, drainJobs, eventually, sleep, startOutsidePeers } from './peers.js';

const secret = 'whsec_automations';
const accountSid = `AC${'a'.repeat(32)}`;

let app: Awaited<ReturnType<typeof buildAppWithQueue>>;
let t: TestApp;
let peers: Awaited<ReturnType<typeof startOutsidePeers>>;

beforeAll(async () => {
  peers = await startOutsidePeers();
  app = await buildAppWithQueue({
    WEBHOOK_URL: `${peers.receiver.url}/hooks`,
    WEBHOOK_SECRET: secret,
    WEBHOOK_EVENTS: 'AUTOMATED_ACTION',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(peers.smtp.port),
    NOTIFY_EMAIL_TO: 'ops@example.com',
    TWILIO_ACCOUNT_SID: accountSid,
    TWILIO_AUTH_TOKEN: 'tok',
    TWILIO_FROM: '+15550000000',
    TWILIO_BASE_URL: peers.twilioApi.url,
    NOTIFY_SMS_TO: '+15551230000',
    TELEGRAM_BOT_TOKEN: '42:bot',
    TELEGRAM_CHAT_ID: '7',
    TELEGRAM_API_URL: peers.telegramApi.url,
    NOTIFY_CUSTOM: 'telegram',
    NOTIFY_AUTOMATED_ACTION: 'telegram',
  });
  t = app.t;
});
afterAll(async () => {
  await app?.close();
  await peers?.close();
});

const validAction = {
  name: 'Suspend abusers',
  description: 'Suspends a license after three blocked validations',
  enabled: true,
  trigger: { event: 'violation_threshold', threshold: 3 },
  actions: [{ type: 'suspend_license', params: { reason: 'Too many violations' } }],
};

async function createAction(body: Record<string, unknown>) {
  const admin = await t.admin();
  const res = await t.http.post('/api/automated-actions').set(admin.headers).send(body);
  expect(res.status).toBe(201);
  return res.body.action as { _id: string; executionCount: number };
}

async function licenseRow(id: string) {
  const { rows } = await t.database.pool.query(
    'SELECT key, suspended, suspend_reason, revoked, ip_limit, expires_at FROM licenses WHERE id = $1',
    [id],
  );
  return rows[0];
}

describe(`automated actions API (${testDatabaseBackend()})`, () => {
  it('answers 401 Unauthorized without a session, and 403 for a signed-in non-admin', async () => {
    for (const [method, path] of [
      ['get', '/api/automated-actions'],
      ['get', '/api/automated-actions/x'],
      ['post', '/api/automated-actions'],
      ['put', '/api/automated-actions/x'],
      ['delete', '/api/automated-actions/x'],
      ['post', '/api/automated-actions/x/execute'],
    ] as const) {
      const res = await t.http[method](path).send({});
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
    }
    const user = await t.signIn('not-an-admin');
    expect((await t.http.get('/api/automated-actions').set(user.headers)).status).toBe(403);
  });

  it('creates (201 action), lists (actions), reads, updates and deletes an action', async () => {
    const admin = await t.admin();
    const created = await t.http.post('/api/automated-actions').set(admin.headers).send(validAction);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      action: {
        _id: expect.any(String),
        name: 'Suspend abusers',
        description: validAction.description,
        enabled: true,
        trigger: { event: 'violation_threshold', threshold: 3 },
        actions: [{ type: 'suspend_license', params: { reason: 'Too many violations' } }],
        executionCount: 0,
        lastExecutedAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const id = created.body.action._id;

    const list = await t.http.get('/api/automated-actions').set(admin.headers);
    expect(list.status).toBe(200);
    expect(list.body.success).toBe(true);
    expect(list.body.actions.map((action: { _id: string }) => action._id)).toContain(id);

    const one = await t.http.get(`/api/automated-actions/${id}`).set(admin.headers);
    expect(one.body).toEqual({ success: true, action: created.body.action });

    const updated = await t.http
      .put(`/api/automated-actions/${id}`)
      .set(admin.headers)
      .send({ enabled: false, trigger: { event: 'license_created' } });
    expect(updated.status).toBe(200);
    expect(updated.body.action).toMatchObject({
      _id: id,
      enabled: false,
      name: 'Suspend abusers',
      trigger: { event: 'license_created' },
    });

    const removed = await t.http.delete(`/api/automated-actions/${id}`).set(admin.headers);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expect((await t.http.get(`/api/automated-actions/${id}`).set(admin.headers)).status).toBe(404);
    const audit = await t.database.pool.query(
      'SELECT action FROM audit_logs WHERE resource_id = $1 ORDER BY created_at',
      [id],
    );
    expect(audit.rows.map((row) => row.action)).toEqual(['create', 'update', 'delete']);
  });

  it('answers 404 for an unknown id on every route, and 403 without a CSRF token', async () => {
    const admin = await t.admin();
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect((await t.http.get(`/api/automated-actions/${id}`).set(admin.headers)).status).toBe(404);
      expect((await t.http.put(`/api/automated-actions/${id}`).set(admin.headers).send({ name: 'x' })).status).toBe(
        404,
      );
      expect((await t.http.delete(`/api/automated-actions/${id}`).set(admin.headers)).status).toBe(404);
      expect((await t.http.post(`/api/automated-actions/${id}/execute`).set(admin.headers).send({})).status).toBe(404);
    }
    const noCsrf = await t.http.post('/api/automated-actions').set('Cookie', admin.cookie).send(validAction);
    expect(noCsrf.status).toBe(403);
  });

  it.each([
    { name: 'a missing name', body: { ...validAction, name: undefined }, field: 'name' },
    {
      name: 'an unknown trigger event',
      body: { ...validAction, trigger: { event: 'sometimes' } },
      field: 'trigger.event',
    },
    {
      name: 'violation_threshold without a threshold',
      body: { ...validAction, trigger: { event: 'violation_threshold' } },
      field: 'trigger.threshold',
    },
    {
      name: 'a threshold of zero',
      body: { ...validAction, trigger: { event: 'violation_threshold', threshold: 0 } },
      field: 'trigger.threshold',
    },
    {
      name: 'an unknown action type',
      body: { ...validAction, actions: [{ type: 'explode', params: {} }] },
      field: 'actions.0.type',
    },
    { name: 'no actions', body: { ...validAction, actions: [] }, field: 'actions' },
    {
      name: 'a webhook without a URL',
      body: { ...validAction, actions: [{ type: 'webhook', params: {} }] },
      field: 'actions.0.params.url',
    },
    { name: 'enabled that is not a boolean', body: { ...validAction, enabled: 'yes' }, field: 'enabled' },
  ])('rejects $name with 400 Validation failed', async ({ body, field }) => {
    const admin = await t.admin();
    const res = await t.http.post('/api/automated-actions').set(admin.headers).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Validation failed' });
    expect(res.body.details).toHaveProperty([field]);
  });

  it('rejects an invalid update with 400 Validation failed', async () => {
    const action = await createAction({ ...validAction, enabled: false });
    const admin = await t.admin();
    const res = await t.http
      .put(`/api/automated-actions/${action._id}`)
      .set(admin.headers)
      .send({ trigger: { event: 'violation_threshold' } });
    expect(res.status).toBe(400);
    expect(res.body.details).toHaveProperty(['trigger.threshold']);
  });
});

describe(`automation engine (${testDatabaseBackend()})`, () => {
  it('a violation_threshold action with threshold 3 suspends after the third blocked validation, not before, runs once, and sends its webhook', async () => {
    const action = await createAction({ ...validAction, name: 'Threshold three' });
    const license = await t.createLicense({ ipLimit: 1 });
    const validate = (ip: string) => t.http.post('/api/license/validate').send({ key: license.key, ip });

    expect((await validate('10.1.0.1')).status).toBe(200);
    for (const ip of ['10.1.0.2', '10.1.0.3']) {
      const res = await validate(ip);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('IP limit exceeded');
    }
    await drainJobs(t.database, 'automation-trigger');
    expect((await licenseRow(license._id)).suspended).toBe(false);

    const third = await validate('10.1.0.4');
    expect(third.body.error).toBe('IP limit exceeded');
    await eventually(async () => (await licenseRow(license._id)).suspended);
    expect((await licenseRow(license._id)).suspend_reason).toBe('Too many violations');
    expect((await validate('10.1.0.1')).body.error).toBe('License suspended');

    // A fourth blocked validation (after a reactivation) does not fire it again.
    await t.database.pool.query('UPDATE licenses SET suspended = false WHERE id = $1', [license._id]);
    expect((await validate('10.1.0.5')).body.error).toBe('IP limit exceeded');
    await drainJobs(t.database, 'automation-trigger');
    expect((await licenseRow(license._id)).suspended).toBe(false);

    const admin = await t.admin();
    const after = await t.http.get(`/api/automated-actions/${action._id}`).set(admin.headers);
    expect(after.body.action.executionCount).toBe(1);
    expect(Date.parse(after.body.action.lastExecutedAt)).not.toBeNaN();

    const hooks = await eventually(() => {
      const found = peers.receiver.requests.filter((request) => JSON.parse(request.body).data.actionId === action._id);
      return found.length ? found : undefined;
    });
    await sleep(1000);
    expect(
      peers.receiver.requests.filter((request) => JSON.parse(request.body).data.actionId === action._id),
    ).toHaveLength(1);
    // NOTIFY_AUTOMATED_ACTION=telegram
    await eventually(() =>
      peers.telegramApi.requests.some((request) =>
        (new URLSearchParams(request.body).get('text') ?? '').startsWith('Automated action ran: Threshold three'),
      ),
    );
    const hook = hooks[0]!;
    expect(
      verifyWebhookSignature({ header: String(hook.headers['x-webhook-signature']), body: hook.body, secret }),
    ).toBe(true);
    expect(JSON.parse(hook.body)).toEqual({
      event: 'AUTOMATED_ACTION',
      timestamp: expect.any(String),
      data: expect.objectContaining({
        actionId: action._id,
        name: 'Threshold three',
        trigger: 'violation_threshold',
        success: true,
        executionCount: 1,
        results: [{ action: 'suspend_license', success: true, message: `License ${license.key} suspended` }],
        context: expect.objectContaining({ licenseKey: license.key, licenseId: license._id, blockedCount: 3 }),
      }),
    });
  });

  it('runs license_created actions on a new license, but not disabled ones or ones whose conditions do not match', async () => {
    const product = await t.createProduct({ licensePrefix: 'AUTO' });
    const hit = await createAction({
      name: 'Trial limit',
      trigger: { event: 'license_created', conditions: { licenseType: 'trial', productId: product._id } },
      actions: [{ type: 'update_license', params: { ipLimit: 3 } }],
    });
    const off = await createAction({
      name: 'Disabled',
      enabled: false,
      trigger: { event: 'license_created' },
      actions: [{ type: 'revoke_license', params: {} }],
    });
    const trial = await t.createLicense({ product: product._id, licenseType: 'trial' });
    const fixed = await t.createLicense({ product: product._id, licenseType: 'fixed' });
    await eventually(async () => (await licenseRow(trial._id)).ip_limit === 3);
    await drainJobs(t.database, 'automation-trigger');
    expect((await licenseRow(fixed._id)).ip_limit).toBe(0);
    expect((await licenseRow(trial._id)).revoked).toBe(false);
    const counts = await t.database.pool.query('SELECT id, execution_count FROM automated_actions WHERE id = ANY($1)', [
      [hit._id, off._id],
    ]);
    expect(Object.fromEntries(counts.rows.map((row) => [row.id, row.execution_count]))).toEqual({
      [hit._id]: 1,
      [off._id]: 0,
    });
  });

  it('execute carries out every action type for real; a failing step is recorded with its message and does not stop the others', async () => {
    const product = await t.createProduct({ licensePrefix: 'EXEC' });
    const license = await t.createLicense({
      product: product._id,
      ipLimit: 1,
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    const target = await t.createLicense({ product: product._id });
    const mailsBefore = peers.smtp.mails.length;
    const action = await createAction({
      name: 'Everything',
      trigger: { event: 'custom' },
      actions: [
        { type: 'update_license', params: { ipLimit: 5, extendDays: 30 } },
        { type: 'send_email', params: { subject: 'Heads up', message: 'License {{licenseKey}} changed' } },
        { type: 'send_sms', params: { message: 'SMS for {{licenseKey}}' } },
        { type: 'send_telegram', params: { message: 'Telegram for {{licenseKey}}' } },
        { type: 'send_notification', params: { kind: 'custom', subject: 'Note', message: 'routed' } },
        { type: 'revoke_license', params: { licenseKey: 'EXEC-doesnotexist' } },
        {
          type: 'webhook',
          params: { url: `${peers.receiver.url}/custom`, event: 'CUSTOM_HOOK', data: { note: 'hello' } },
        },
        { type: 'create_license', params: { productId: product._id, licenseType: 'fixed', durationDays: 10 } },
        { type: 'suspend_license', params: { licenseId: target._id, reason: 'manual test' } },
        { type: 'custom', params: { note: 'call accounting' } },
        { type: 'revoke_license', params: {} },
      ],
    });
    const admin = await t.admin();
    const res = await t.http
      .post(`/api/automated-actions/${action._id}/execute`)
      .set(admin.headers)
      .send({ context: { licenseKey: license.key, event: 'custom' } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { result } = res.body;
    expect(result.success).toBe(false);
    expect(result.results.map((step: { action: string; success: boolean }) => [step.action, step.success])).toEqual([
      ['update_license', true],
      ['send_email', true],
      ['send_sms', true],
      ['send_telegram', true],
      ['send_notification', true],
      ['revoke_license', false],
      ['webhook', true],
      ['create_license', true],
      ['suspend_license', true],
      ['custom', true],
      ['revoke_license', true],
    ]);
    expect(result.results[5].message).toBe('License not found');
    for (const step of result.results) expect(typeof step.message).toBe('string');

    const row = await licenseRow(license._id);
    expect(row.ip_limit).toBe(5);
    expect(new Date(row.expires_at).getTime()).toBeGreaterThan(Date.now() + 30 * 86_400_000);
    expect(row.revoked).toBe(true);
    expect((await licenseRow(target._id)).suspended).toBe(true);
    const createdKey = /License (EXEC-\S+) created/.exec(result.results[7].message)![1];
    expect((await t.database.pool.query('SELECT 1 FROM licenses WHERE key = $1', [createdKey])).rowCount).toBe(1);

    expect(peers.smtp.mails.length).toBe(mailsBefore + 1);
    expect(peers.smtp.mails.at(-1)!.to).toEqual(['ops@example.com']);
    expect(peers.smtp.mails.at(-1)!.raw).toContain(`License ${license.key} changed`);
    expect(new URLSearchParams(peers.twilioApi.requests.at(-1)!.body).get('Body')).toBe(
      `Automated action: Everything: SMS for ${license.key}`,
    );
    const telegramTexts = () =>
      peers.telegramApi.requests.map((request) => new URLSearchParams(request.body).get('text'));
    expect(telegramTexts()).toContain(`Automated action: Everything\n\nTelegram for ${license.key}`);
    // send_notification goes through the queue to the channels routed for its kind (NOTIFY_CUSTOM=telegram).
    await eventually(() => telegramTexts().includes('Note\n\nrouted'));
    const custom = await eventually(() => peers.receiver.requests.find((request) => request.path === '/custom'));
    expect(JSON.parse(custom.body)).toMatchObject({
      event: 'CUSTOM_HOOK',
      data: { actionId: action._id, data: { note: 'hello' } },
    });
    expect(
      verifyWebhookSignature({ header: String(custom.headers['x-webhook-signature']), body: custom.body, secret }),
    ).toBe(true);

    const runs = await t.database.pool.query(
      'SELECT success, results, trigger_event FROM automated_action_runs WHERE action_id = $1',
      [action._id],
    );
    expect(runs.rows).toHaveLength(1);
    expect(runs.rows[0]).toMatchObject({ success: false, trigger_event: 'custom' });
    expect(runs.rows[0].results[5]).toEqual({ action: 'revoke_license', success: false, message: 'License not found' });
    const after = await t.http.get(`/api/automated-actions/${action._id}`).set(admin.headers);
    expect(after.body.action.executionCount).toBe(1);
  });

  it('a trigger delivered twice (a retried job) runs each action once', async () => {
    const product = await t.createProduct({ licensePrefix: 'TWICE' });
    const action = await createAction({
      name: 'Once per trigger',
      trigger: { event: 'anomaly_detected', conditions: { productId: product._id } },
      actions: [{ type: 'custom', params: {} }],
    });
    const job = {
      triggerId: 'f0e4c2f6-0000-4000-8000-000000000001',
      event: 'anomaly_detected',
      context: { productId: product._id },
      depth: 0,
    };
    await app.queue.send('automation-trigger', job);
    await app.queue.send('automation-trigger', job);
    await drainJobs(t.database, 'automation-trigger');
    const admin = await t.admin();
    expect(
      (await t.http.get(`/api/automated-actions/${action._id}`).set(admin.headers)).body.action.executionCount,
    ).toBe(1);
  });

  it('cuts a chain of actions that trigger each other at depth 3', async () => {
    const product = await t.createProduct({ licensePrefix: 'LOOP' });
    await createAction({
      name: 'Loop',
      trigger: { event: 'license_created', conditions: { productId: product._id } },
      actions: [{ type: 'create_license', params: { productId: product._id } }],
    });
    await t.createLicense({ product: product._id });
    const count = async () =>
      (await t.database.pool.query('SELECT count(*)::int AS n FROM licenses WHERE product_id = $1', [product._id]))
        .rows[0].n;
    await eventually(async () => (await count()) === 4);
    await drainJobs(t.database, 'automation-trigger');
    await sleep(500);
    await drainJobs(t.database, 'automation-trigger');
    expect(await count()).toBe(4);
  });

  it('counts concurrent runs exactly', async () => {
    const action = await createAction({
      name: 'Counter',
      trigger: { event: 'custom' },
      actions: [{ type: 'custom', params: {} }],
    });
    const admin = await t.admin();
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.http.post(`/api/automated-actions/${action._id}/execute`).set(admin.headers).send({ context: {} }),
      ),
    );
    expect(results.every((res) => res.status === 200 && res.body.result.success)).toBe(true);
    const after = await t.http.get(`/api/automated-actions/${action._id}`).set(admin.headers);
    expect(after.body.action.executionCount).toBe(10);
  });
});
