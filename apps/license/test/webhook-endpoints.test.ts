import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { verifyWebhookSignature } from '@app/events';
import { eventually, startHttpRecorder, type HttpRecorder, type RecordedRequest } from '@app/events/testing';
import { buildTestApp, migrationsFolder, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

const signedWith = (request: RecordedRequest, secret: string) =>
  verifyWebhookSignature({ header: String(request.headers['x-webhook-signature'] ?? ''), body: request.body, secret });
const eventOf = (request: RecordedRequest) => (JSON.parse(request.body) as { event: string }).event;
const keyOf = (request: RecordedRequest) =>
  String((JSON.parse(request.body) as { data: { licenseKey?: string } }).data.licenseKey ?? '');

/** A form post as a browser sends it (urlencoded, repeated `events`), with the session's CSRF token unless told otherwise. */
function formBody(fields: Array<[string, string]>) {
  return fields.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}

async function endpointCount(t: TestApp) {
  return (await t.database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints')).rows[0]!.n;
}

describe(`webhook endpoints managed in the admin console (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  let first: HttpRecorder;
  let second: HttpRecorder;

  beforeAll(async () => {
    [first, second] = await Promise.all([startHttpRecorder(), startHttpRecorder()]);
    t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '3000' } });
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
    await first?.close();
    await second?.close();
  });

  const post = (path: string, fields: Array<[string, string]>, session: Session = admin, csrf = true) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send(formBody(csrf ? [['_csrf', session.csrfToken], ...fields] : fields));
  const get = (path: string, session: Session | null = admin) => {
    const request = t.http.get(path);
    return session ? request.set('Cookie', session.cookie) : request;
  };

  /** Adds an endpoint through the form; answers its id and the secret its next page shows once. */
  async function addEndpoint(url: string, events: string[]) {
    const created = await post('/webhooks/endpoints', [
      ['url', url],
      ...events.map((event): [string, string] => ['events', event]),
    ]);
    expect(created.status, created.text).toBe(303);
    const location = String(created.headers.location);
    expect(location).toMatch(/^\/webhooks\/endpoints\/[0-9a-f-]{36}\/secret$/);
    const page = await get(location);
    expect(page.status).toBe(200);
    const secret = documentOf(page.text).querySelector('[data-secret]')?.textContent ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(textOf(page.text)).toContain('you will not see it again');
    return { id: location.split('/')[3]!, secret, location };
  }

  it('starts with the empty state and the form, every field labelled, every form carrying the CSRF token', async () => {
    const list = await get('/webhooks');
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(textOf(list.text)).toContain('No webhook endpoints yet.');
    const nav = documentOf(list.text);
    expect(nav.querySelector('nav.admin-nav a[aria-current="page"]')?.getAttribute('href')).toBe('/webhooks');
    expect(nav.querySelector('nav.webhooks-subnav a[href="/webhooks/channels"]')?.textContent).toBe(
      'Notification channels',
    );
    const form = documentOf((await get('/webhooks/new')).text).querySelector('form[action="/webhooks/endpoints"]')!;
    expect(form.querySelector('input[name="_csrf"]')?.getAttribute('value')).toBe(admin.csrfToken);
    const labels = [...form.querySelectorAll('input:not([type="hidden"])')].map((input) =>
      input.closest('label')?.textContent?.replace(/\s+/g, ' ').trim(),
    );
    expect(labels[0]).toMatch(/^URL/);
    expect(labels.slice(1)).toEqual([
      'License created (LICENSE_CREATED)',
      'License revoked (LICENSE_REVOKED)',
      'License expired (LICENSE_EXPIRED)',
      'Validation blocked (IP or device limit) (NEW_REQUEST_BLOCKED)',
      'Anomaly detected (ANOMALY_DETECTED)',
      'Automated action ran (AUTOMATED_ACTION)',
      'Machine activated (MACHINE_ACTIVATED)',
      'Machine deactivated (MACHINE_DEACTIVATED)',
      'Floating seat lapsed (MACHINE_LEASE_EXPIRED)',
      'Key sharing suspected (LICENSE_SHARING_SUSPECTED)',
    ]);
    expect(textOf((await get('/webhooks/deliveries')).text)).toContain('No deliveries yet.');
  });

  it('shows the secret once: the page after creating has it, the same page again does not; the database keeps it sealed', async () => {
    const { id, secret, location } = await addEndpoint(`${first.url}/once`, []);
    const again = await get(location);
    expect(again.status).toBe(200);
    expect(again.text).not.toContain(secret);
    expect(textOf(again.text)).toContain('This secret was shown once and cannot be shown again.');
    const { rows } = await t.database.pool.query('SELECT * FROM webhook_endpoints WHERE id = $1', [id]);
    expect(rows[0]).toMatchObject({ url: `${first.url}/once`, events: [], enabled: true });
    expect(rows[0].secret_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    const audit = await t.database.pool.query(
      'SELECT action, resource_type, success, changes FROM audit_logs WHERE resource_id = $1',
      [id],
    );
    expect(audit.rows).toMatchObject([{ action: 'create', resource_type: 'notification', success: true }]);
    expect(JSON.stringify(audit.rows)).not.toContain(secret);
    // Out of the way of the next tests.
    expect((await post(`/webhooks/endpoints/${id}/delete`, [])).status).toBe(303);
  });

  it('two endpoints with different events each get only their events, signed with their own secret; rotating changes the secret that signs', async () => {
    const created = await addEndpoint(`${first.url}/created`, ['LICENSE_CREATED']);
    const revoked = await addEndpoint(`${second.url}/revoked`, ['LICENSE_REVOKED', 'LICENSE_EXPIRED']);
    const list = textOf((await get('/webhooks')).text);
    expect(list).toContain(`${first.url}/created`);
    expect(list).toContain('License revoked, License expired');

    const license = await t.createLicense({});
    const revoke = await t.http.post(`/api/licenses/${license._id}/revoke`).set(admin.headers).send({ reason: 'test' });
    expect(revoke.status).toBe(200);
    const [toFirst] = await eventually(() => {
      const found = first.requests.filter((r) => keyOf(r) === license.key);
      return found.length ? found : undefined;
    });
    const [toSecond] = await eventually(() => {
      const found = second.requests.filter((r) => keyOf(r) === license.key);
      return found.length ? found : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(first.requests.filter((r) => keyOf(r) === license.key).map(eventOf)).toEqual(['LICENSE_CREATED']);
    expect(second.requests.filter((r) => keyOf(r) === license.key).map(eventOf)).toEqual(['LICENSE_REVOKED']);
    expect(signedWith(toFirst!, created.secret)).toBe(true);
    expect(signedWith(toFirst!, revoked.secret)).toBe(false);
    expect(signedWith(toSecond!, revoked.secret)).toBe(true);
    expect(signedWith(toSecond!, created.secret)).toBe(false);
    // The log names the endpoint of each delivery.
    const { rows } = await t.database.pool.query(
      'SELECT endpoint_id, event FROM webhook_deliveries WHERE payload LIKE $1 ORDER BY event',
      [`%${license.key}%`],
    );
    expect(rows).toEqual([
      { endpoint_id: created.id, event: 'LICENSE_CREATED' },
      { endpoint_id: revoked.id, event: 'LICENSE_REVOKED' },
    ]);

    // Rotate: the new secret is shown once, and signs from now on.
    const rotated = await post(`/webhooks/endpoints/${created.id}/rotate`, []);
    expect(rotated.status).toBe(303);
    expect(rotated.headers.location).toBe(created.location);
    const page = await get(created.location);
    const newSecret = documentOf(page.text).querySelector('[data-secret]')?.textContent ?? '';
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(created.secret);
    const later = await t.createLicense({});
    const [afterRotation] = await eventually(() => {
      const found = first.requests.filter((r) => keyOf(r) === later.key);
      return found.length ? found : undefined;
    });
    expect(signedWith(afterRotation!, newSecret)).toBe(true);
    expect(signedWith(afterRotation!, created.secret)).toBe(false);
    const audit = await t.database.pool.query(
      'SELECT action FROM audit_logs WHERE resource_id = $1 AND resource_type = $2 ORDER BY created_at',
      [created.id, 'notification'],
    );
    expect(audit.rows.map((row) => row.action)).toEqual(['create', 'update']);

    // Disabled: no more events; "Send test" still reaches it, with the webhook.test event.
    expect((await post(`/webhooks/endpoints/${created.id}/disable`, [])).status).toBe(303);
    const quiet = await t.createLicense({});
    const test = await post(`/webhooks/endpoints/${created.id}/test`, []);
    expect(test.status).toBe(303);
    expect(test.headers.location).toBe('/webhooks/deliveries');
    const testHook = await eventually(() => first.requests.find((r) => eventOf(r) === 'webhook.test'));
    expect(signedWith(testHook, newSecret)).toBe(true);
    expect(JSON.parse(testHook.body).data).toMatchObject({ endpointId: created.id });
    expect(first.requests.filter((r) => keyOf(r) === quiet.key)).toHaveLength(0);

    // The delivery log shows it delivered with 200, and "Redeliver" sends it again.
    const row = await eventually(async () => {
      const found = (
        await t.database.pool.query("SELECT id, status FROM webhook_deliveries WHERE event = 'webhook.test'")
      ).rows[0];
      return found?.status === 'delivered' ? found : undefined;
    });
    const log = documentOf((await get('/webhooks/deliveries?status=delivered')).text);
    const logRow = log.querySelector(`tr[data-delivery="${row.id}"]`)!;
    expect(logRow.textContent).toContain('Test delivery (webhook.test)');
    expect(logRow.querySelector('[data-response-code]')?.textContent).toBe('200');
    expect(logRow.querySelector('form')?.getAttribute('action')).toBe(
      `/webhooks/deliveries/${row.id}/redeliver?status=delivered`,
    );
    const again = await post(`/webhooks/deliveries/${row.id}/redeliver?status=delivered`, []);
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/webhooks/deliveries?status=delivered');
    await eventually(() => first.requests.filter((r) => r.headers['x-webhook-id'] === row.id).length >= 2);
    const unknownFilter = await post(`/webhooks/deliveries/${row.id}/redeliver?status=nonsense`, []);
    expect(unknownFilter.headers.location).toBe('/webhooks/deliveries');

    // Delete asks first (a confirm form), then the endpoint is gone; its deliveries stay, without an endpoint.
    const listPage = documentOf((await get('/webhooks')).text);
    expect(
      listPage
        .querySelector(`form[action="/webhooks/endpoints/${revoked.id}/delete"]`)
        ?.getAttribute('data-ui-confirm'),
    ).toMatch(/^Delete the endpoint/);
    expect(
      listPage
        .querySelector(`form[action="/webhooks/endpoints/${revoked.id}/rotate"]`)
        ?.getAttribute('data-ui-confirm'),
    ).toMatch(/^Make a new secret/);
    expect((await post(`/webhooks/endpoints/${revoked.id}/delete`, [])).status).toBe(303);
    const afterDelete = await get('/webhooks');
    expect(textOf(afterDelete.text)).toContain(`Endpoint ${second.url}/revoked deleted.`);
    expect(documentOf(afterDelete.text).querySelector(`tr[data-endpoint="${revoked.id}"]`)).toBeNull();
    const kept = await t.database.pool.query('SELECT endpoint_id FROM webhook_deliveries WHERE url = $1', [
      `${second.url}/revoked`,
    ]);
    expect(kept.rows.length).toBeGreaterThan(0);
    expect(kept.rows.every((r) => r.endpoint_id === null)).toBe(true);
    expect((await post(`/webhooks/endpoints/${created.id}/delete`, [])).status).toBe(303);
  }, 60_000);

  it('a bad URL shows the form again with what is wrong, and is audited as a failed write', async () => {
    const res = await post('/webhooks/endpoints', [
      ['url', 'not a url'],
      ['events', 'LICENSE_CREATED'],
    ]);
    expect(res.status).toBe(400);
    expect(textOf(res.text)).toContain('URL: enter an http:// or https:// address.');
    expect(documentOf(res.text).querySelector('input[name="url"]')?.getAttribute('value')).toBe('not a url');
    expect(
      documentOf(res.text).querySelector<HTMLInputElement>('input[value="LICENSE_CREATED"]')?.hasAttribute('checked'),
    ).toBe(true);
  });

  it('refuses visitors, non-admins and posts without the CSRF token', async () => {
    expect((await get('/webhooks', null)).status).toBe(303);
    expect((await get('/webhooks/deliveries', null)).status).toBe(303);
    const visitorPost = await t.http
      .post('/webhooks/endpoints')
      .type('form')
      .send(formBody([['url', 'https://hooks.example.com/x']]));
    expect([303, 403]).toContain(visitorPost.status);
    const someone = await t.signIn('not-an-admin');
    expect((await get('/webhooks', someone)).status).toBe(403);
    expect((await post('/webhooks/endpoints', [['url', 'https://hooks.example.com/x']], someone)).status).toBe(403);
    expect((await post('/webhooks/endpoints', [['url', 'https://hooks.example.com/x']], admin, false)).status).toBe(
      403,
    );
    const wrongToken = await t.http
      .post('/webhooks/endpoints')
      .set('Cookie', admin.cookie)
      .type('form')
      .send(
        formBody([
          ['_csrf', 'not-the-token'],
          ['url', 'https://hooks.example.com/x'],
        ]),
      );
    expect(wrongToken.status).toBe(403);
    expect(await endpointCount(t)).toBe(0);
    expect((await post('/webhooks/endpoints/00000000-0000-4000-8000-000000000000/delete', [])).status).toBe(404);
  });
});

describe(`the webhook endpoints JSON API (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let receiver: HttpRecorder;
  beforeAll(async () => {
    receiver = await startHttpRecorder();
    t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('creates (secret told once), lists without secrets, disables, rotates, sends a test and deletes, each audited; guarded and CSRF-checked', async () => {
    const admin = await t.admin();
    expect((await t.http.get('/api/webhooks/endpoints')).status).toBe(401);
    expect(
      (
        await t.http
          .post('/api/webhooks/endpoints')
          .set('Cookie', admin.cookie)
          .send({ url: `${receiver.url}/api` })
      ).status,
    ).toBe(403);
    const created = await t.http
      .post('/api/webhooks/endpoints')
      .set(admin.headers)
      .send({ url: `${receiver.url}/api`, events: ['LICENSE_CREATED'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      success: true,
      endpoint: {
        url: `${receiver.url}/api`,
        events: ['LICENSE_CREATED'],
        enabled: true,
        signed: true,
        lastDelivery: null,
      },
    });
    const { secret } = created.body;
    const id = created.body.endpoint._id;
    const list = await t.http.get('/api/webhooks/endpoints').set(admin.headers);
    expect(list.body).toMatchObject({ success: true, count: 1, endpoints: [{ _id: id }] });
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const test = await t.http.post(`/api/webhooks/endpoints/${id}/test`).set(admin.headers);
    expect(test.status).toBe(200);
    const hook = await eventually(() =>
      receiver.requests.find((r) => r.headers['x-webhook-id'] === test.body.deliveryId),
    );
    expect(signedWith(hook, secret)).toBe(true);

    const rotated = await t.http.post(`/api/webhooks/endpoints/${id}/rotate`).set(admin.headers);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secret);
    const disabled = await t.http.put(`/api/webhooks/endpoints/${id}`).set(admin.headers).send({ enabled: false });
    expect(disabled.body.endpoint.enabled).toBe(false);
    expect((await t.http.put(`/api/webhooks/endpoints/${id}`).set(admin.headers).send({ enabled: 'no' })).status).toBe(
      400,
    );
    expect((await t.http.delete(`/api/webhooks/endpoints/${id}`).set(admin.headers)).body).toEqual({ success: true });
    expect((await t.http.delete(`/api/webhooks/endpoints/${id}`).set(admin.headers)).body).toEqual({
      success: false,
      error: 'Webhook endpoint not found',
    });
    const audit = await t.database.pool.query(
      "SELECT action FROM audit_logs WHERE resource_id = $1 AND resource_type = 'notification' AND success ORDER BY created_at",
      [id],
    );
    expect(audit.rows.map((row) => row.action)).toEqual(['create', 'create', 'update', 'update', 'delete']);
  });
});

describe(`webhook endpoint URLs without WEBHOOK_ALLOW_PRIVATE (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    'http://127.0.0.1:9/hooks',
    'http://localhost/hooks',
    'http://10.0.0.5/x',
    'http://169.254.169.254/latest',
    'http://[::1]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[fec0::1]/',
  ])('saving %s answers 400 Webhook URL not allowed and stores nothing', async (url) => {
    const admin = await t.admin();
    const res = await t.http
      .post('/webhooks/endpoints')
      .set('Cookie', admin.cookie)
      .type('form')
      .send(
        formBody([
          ['_csrf', admin.csrfToken],
          ['url', url],
        ]),
      );
    expect(res.status).toBe(400);
    expect(textOf(res.text)).toContain('Webhook URL not allowed');
    // The spec's text stays exact; the way out is named beside it.
    expect(textOf(res.text)).toContain('unless the service runs with WEBHOOK_ALLOW_PRIVATE=true');
    expect(await endpointCount(t)).toBe(0);
    const audit = await t.database.pool.query(
      "SELECT success, changes FROM audit_logs WHERE resource_type = 'notification' AND action = 'create' ORDER BY created_at DESC LIMIT 1",
    );
    expect(audit.rows[0]).toMatchObject({
      success: false,
      changes: { after: { status: 400, error: 'Webhook URL not allowed' } },
    });
    const api = await t.http.post('/api/webhooks/endpoints').set(admin.headers).send({ url });
    expect(api.status).toBe(400);
    expect(api.body).toEqual({
      success: false,
      error: 'Webhook URL not allowed',
      hint: expect.stringContaining('WEBHOOK_ALLOW_PRIVATE=true'),
    });
    expect(await endpointCount(t)).toBe(0);
  });
});

describe(`the environment's webhook settings as the starting endpoint (${testDatabaseBackend()})`, () => {
  it('makes one endpoint from WEBHOOK_URL, WEBHOOK_EVENTS and WEBHOOK_SECRET when there is none: once, across two instances starting together and a restart', async () => {
    const receiver = await startHttpRecorder();
    const database = await createTestDatabase(migrationsFolder);
    const env = {
      WEBHOOK_URL: `${receiver.url}/env`,
      WEBHOOK_EVENTS: 'LICENSE_CREATED',
      WEBHOOK_SECRET: 'whsec_from_env',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    try {
      const [a, b] = await Promise.all([buildTestApp({ env, database }), buildTestApp({ env, database })]);
      const { rows } = await database.pool.query('SELECT url, events, enabled FROM webhook_endpoints');
      expect(rows).toEqual([{ url: `${receiver.url}/env`, events: ['LICENSE_CREATED'], enabled: true }]);
      const license = await a.createLicense({});
      const hook = await eventually(() => receiver.requests.find((r) => keyOf(r) === license.key));
      expect(signedWith(hook, 'whsec_from_env')).toBe(true);
      await a.close();
      await b.close();
      // A restart with other values keeps the stored endpoint: the environment only gives the starting values.
      const c = await buildTestApp({ env: { ...env, WEBHOOK_URL: `${receiver.url}/changed` }, database });
      expect((await database.pool.query('SELECT url FROM webhook_endpoints')).rows).toEqual([
        { url: `${receiver.url}/env` },
      ]);
      const audit = await database.pool.query(
        "SELECT user_id FROM audit_logs WHERE resource_type = 'notification' AND action = 'create'",
      );
      expect(audit.rows).toEqual([{ user_id: 'system' }]);
      await c.close();
    } finally {
      await database.close();
      await receiver.close();
    }
  }, 60_000);
});
