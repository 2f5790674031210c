import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type Session, type TestApp } from './helpers.js';
import { documentOf, formToken, textOf } from '@app/ui/testing/dom';

const HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(1)>';

describe(`the admin console's automation pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session: Session | undefined = admin, status = 200) => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status, `${path} answered ${res.status}`).toBe(status);
    return res.text;
  };
  const post = (path: string, fields: Record<string, string>, session: Session = admin, csrf = true) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send(csrf ? { _csrf: session.csrfToken, ...fields } : fields);
  const auditOf = async (id: string) =>
    (
      await t.database.pool.query<{ action: string; success: boolean; user_id: string }>(
        `SELECT action, success, user_id FROM audit_logs WHERE resource_type = 'system' AND resource_id = $1 ORDER BY created_at, id`,
        [id],
      )
    ).rows;
  const idOf = (location: string) => location.replace('/automations/', '');

  it('keeps visitors and non-admins out', async () => {
    const visitor = await t.http.get('/automations');
    expect(visitor.status).toBe(303);
    expect(visitor.headers.location).toBe('/?returnTo=%2Fautomations');
    const { session: customer } = await t.customer();
    // A customer goes to their portal (customer-console-addresses.test.ts).
    for (const path of ['/automations', '/automations/new']) await get(path, customer, 303);
    const write = await post('/automations', { name: 'Not allowed', trigger: 'custom', action: 'custom' }, customer);
    expect(write.status).toBe(403);
    const { rows } = await t.database.pool.query(`SELECT 1 FROM automated_actions WHERE name = 'Not allowed'`);
    expect(rows).toHaveLength(0);
  });

  it('shows an empty list that explains what automations are, with a "New automation" button', async () => {
    const document = documentOf(await get('/automations'));
    expect(document.querySelector('h1')?.textContent).toBe('Automations');
    expect(document.querySelector('.admin-nav a[aria-current="page"]')?.textContent).toBe('Automations');
    expect(document.querySelector('.empty-title')?.textContent).toBe('No automations yet.');
    expect(document.querySelector('.empty')?.textContent).toContain('does something by itself when something happens');
    const buttons = [...document.querySelectorAll('a.button')].filter((link) => link.textContent === 'New automation');
    expect(buttons.length).toBeGreaterThan(0);
    expect(buttons[0]!.getAttribute('href')).toBe('/automations/new');
  });

  it('explains every trigger and action in the form, every field labelled', async () => {
    const html = await get('/automations/new');
    const document = documentOf(html);
    const triggers = [...document.querySelectorAll<HTMLInputElement>('input[name="trigger"]')];
    expect(triggers.map((input) => input.value)).toEqual([
      'license_created',
      'license_expired',
      'license_revoked',
      'violation_threshold',
      'anomaly_detected',
      'transaction_completed',
      'machine_activated',
      'machine_deactivated',
      'machine_lease_expired',
      'license_sharing_suspected',
      'custom',
    ]);
    const actions = [...document.querySelectorAll<HTMLInputElement>('input[name="action"]')];
    expect(actions).toHaveLength(10);
    for (const radio of [...triggers, ...actions]) {
      const description = document.getElementById(radio.getAttribute('aria-describedby') ?? '');
      expect(description?.textContent?.length, radio.value).toBeGreaterThan(20);
      expect(radio.closest('label')?.textContent?.trim().length).toBeGreaterThan(3);
    }
    for (const input of document.querySelectorAll('form input:not([type="hidden"]), form select, form textarea'))
      expect(input.closest('label')).toBeTruthy();
    expect(formToken(html)).toBe(admin.csrfToken);
    expect(document.querySelector('script[src$="/automations.js"]')).toBeTruthy();
    // Each action's fields are a group named by the action; the script shows the chosen one only.
    expect(document.querySelector('fieldset[data-action-fields="webhook"] legend')?.textContent).toContain(
      'Call a webhook',
    );
  });

  it('creates through the form with the CSRF token, audited as through the API; shows it in the list', async () => {
    const res = await post('/automations', {
      name: 'Suspend after abuse',
      description: 'Too many blocked validations',
      enabled: 'on',
      trigger: 'violation_threshold',
      threshold: '10',
      action: 'suspend_license',
      'suspend_license.reason': 'Too many blocked validations',
      // Fields of other actions are sent too (no script): only the chosen action's are read.
      'send_email.to': 'ignored@example.com',
    });
    expect(res.status).toBe(303);
    const id = idOf(String(res.headers.location));
    const action = (await t.http.get(`/api/automated-actions/${id}`).set(admin.headers).expect(200)).body.action;
    expect(action).toMatchObject({
      name: 'Suspend after abuse',
      enabled: true,
      trigger: { event: 'violation_threshold', threshold: 10 },
      actions: [{ type: 'suspend_license', params: { reason: 'Too many blocked validations' } }],
    });
    expect(await auditOf(id)).toEqual([{ action: 'create', success: true, user_id: 'admin' }]);
    const detail = await get(`/automations/${id}`);
    expect(documentOf(detail).querySelector('.alert-success')?.textContent).toBe(
      'Automation “Suspend after abuse” created.',
    );
    expect(textOf(detail)).toContain('A license reaches 10 blocked validations');

    const list = documentOf(await get('/automations'));
    const row = list.querySelector(`tr[data-automation="${id}"]`);
    expect(row?.querySelector('td[data-label="When"]')?.textContent).toBe('A license reaches 10 blocked validations');
    expect(row?.querySelector('td[data-label="Does"]')?.textContent).toBe('Suspend the license');
    expect(row?.querySelector('td[data-label="State"]')?.textContent).toBe('enabled');
    expect(row?.querySelector('td[data-label="Last run"]')?.textContent).toBe('never');
  });

  it('shows the form again with readable errors and the values kept; the failure is audited', async () => {
    const before = await t.database.pool.query(
      `SELECT count(*)::int AS n FROM audit_logs WHERE resource_type = 'system' AND NOT success`,
    );
    const res = await post('/automations', {
      name: '  ',
      description: 'Kept description',
      trigger: 'violation_threshold',
      threshold: 'lots',
      action: 'webhook',
      'webhook.url': 'not a url',
      'webhook.event': 'KEPT_EVENT',
    });
    expect(res.status).toBe(400);
    const document = documentOf(res.text);
    const errors = [...document.querySelectorAll('.alert-error li')].map((item) => item.textContent);
    expect(errors).toEqual([
      'Name: enter 1 to 200 characters.',
      'How many blocked validations: enter a whole number from 1 to 1,000,000.',
      'Webhook URL: enter an http or https address, like https://example.com/hook.',
    ]);
    expect(document.querySelector<HTMLTextAreaElement>('textarea[name="description"]')?.value).toBe('Kept description');
    expect(document.querySelector('input[name="threshold"]')?.getAttribute('value')).toBe('lots');
    expect(document.querySelector<HTMLInputElement>('input[name="webhook.event"]')?.value).toBe('KEPT_EVENT');
    expect(document.querySelector<HTMLInputElement>('input[name="trigger"]:checked')?.value).toBe(
      'violation_threshold',
    );
    expect(document.querySelector<HTMLInputElement>('input[name="action"]:checked')?.value).toBe('webhook');
    expect(document.querySelector<HTMLInputElement>('input[name="enabled"]')?.checked).toBe(false);
    const after = await t.database.pool.query(
      `SELECT count(*)::int AS n FROM audit_logs WHERE resource_type = 'system' AND NOT success`,
    );
    expect(after.rows[0].n).toBe(before.rows[0].n + 1);

    // A rule the service checks (a private webhook address) comes back the same way.
    const privateUrl = await post('/automations', {
      name: 'Private hook',
      trigger: 'custom',
      action: 'webhook',
      'webhook.url': 'http://127.0.0.1/hook',
    });
    expect(privateUrl.status).toBe(400);
    expect(textOf(privateUrl.text)).toContain('Webhook URL not allowed');
    // A number field of the chosen action must be a whole number.
    const days = await post('/automations', {
      name: 'Extend',
      trigger: 'custom',
      action: 'update_license',
      'update_license.extendDays': '3.5',
    });
    expect(days.status).toBe(400);
    expect(textOf(days.text)).toContain('Extend by (days): enter a whole number (0 or more).');
  });

  it('edits through the form, keeping what the form does not show; audited', async () => {
    const created = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Edit me',
        trigger: { event: 'license_created', conditions: { licenseType: 'trial' } },
        actions: [
          { type: 'send_email', params: { to: 'a@example.com', subject: 'Hi', kind: 'kept' } },
          { type: 'custom', params: { note: 'second' } },
        ],
      })
      .expect(201);
    const id = created.body.action._id;
    const form = documentOf(await get(`/automations/${id}/edit`));
    expect(form.querySelector('h1')?.textContent).toBe('Edit “Edit me”');
    expect(form.querySelector<HTMLInputElement>('input[name="send_email.to"]')?.value).toBe('a@example.com');
    expect(form.querySelector<HTMLInputElement>('input[name="action"]:checked')?.value).toBe('send_email');
    expect(textOf(form.documentElement.outerHTML)).toContain('1 more step after this one');

    const res = await post(`/automations/${id}`, {
      name: 'Edited',
      trigger: 'license_revoked',
      action: 'send_email',
      'send_email.to': 'b@example.com',
      'send_email.subject': '',
      'send_email.message': 'Revoked {{licenseKey}}',
    });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/automations/${id}`);
    const action = (await t.http.get(`/api/automated-actions/${id}`).set(admin.headers).expect(200)).body.action;
    expect(action).toMatchObject({
      name: 'Edited',
      enabled: false,
      trigger: { event: 'license_revoked', conditions: { licenseType: 'trial' } },
      actions: [
        { type: 'send_email', params: { to: 'b@example.com', message: 'Revoked {{licenseKey}}', kind: 'kept' } },
        { type: 'custom', params: { note: 'second' } },
      ],
    });
    expect(action.actions[0].params.subject).toBeUndefined();
    expect((await auditOf(id)).map((entry) => entry.action)).toEqual(['create', 'update']);
    expect(documentOf(await get(`/automations/${id}`)).querySelector('.alert-success')?.textContent).toBe(
      'Automation “Edited” saved.',
    );

    const invalid = await post(`/automations/${id}`, { name: '', trigger: 'license_revoked', action: 'send_email' });
    expect(invalid.status).toBe(400);
    expect(textOf(invalid.text)).toContain('Name: enter 1 to 200 characters.');
    await get('/automations/00000000-0000-4000-8000-000000000000/edit', admin, 404);
    await get('/automations/not-an-id', admin, 404);
  });

  it('runs now (asking for the license when a step needs one), records the run and shows it with its result', async () => {
    const license = await t.createLicense();
    const created = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Suspend by hand',
        trigger: { event: 'custom' },
        actions: [{ type: 'suspend_license', params: { reason: 'Manual check' } }],
      })
      .expect(201);
    const id = created.body.action._id;
    const page = documentOf(await get(`/automations/${id}`));
    const runForm = page.querySelector('form[aria-label="Run now"]');
    expect(runForm?.querySelector('label .label')?.textContent).toBe('License key');
    expect(page.querySelector('#runs .empty-title')?.textContent).toBe('It has not run yet.');

    // Without the license: nothing runs, the page says what is missing.
    expect((await post(`/automations/${id}/run`, { licenseKey: ' ' })).status).toBe(303);
    expect(textOf(await get(`/automations/${id}`))).toContain('Give the key of the license to run it on.');
    expect((await t.context.services.licenses.detail(license._id)).suspended).toBe(false);

    const run = await post(`/automations/${id}/run`, { licenseKey: license.key });
    expect(run.status).toBe(303);
    expect(run.headers.location).toBe(`/automations/${id}`);
    expect((await t.context.services.licenses.detail(license._id)).suspendReason).toBe('Manual check');
    const after = documentOf(await get(`/automations/${id}`));
    expect(after.querySelector('.alert-success')?.textContent).toBe(
      `Ran “Suspend by hand”: License ${license.key} suspended.`,
    );
    const rows = after.querySelectorAll('tr[data-run]');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.querySelector('td[data-label="Result"]')?.textContent).toBe('succeeded');
    expect(rows[0]!.querySelector('td[data-label="What happened"]')?.textContent).toContain(
      `License ${license.key} suspended`,
    );
    expect(rows[0]!.querySelector('td[data-label="Why"]')?.textContent).toContain('Run by hand');

    // A failing step is a failed run, shown as such (the license is suspended already: it cannot be suspended twice, or it can; either way it is listed).
    await post(`/automations/${id}/run`, { licenseKey: 'NO-SUCH-KEY' }).expect(303);
    const failedPage = documentOf(await get(`/automations/${id}`));
    expect(failedPage.querySelector('.alert-error')?.textContent).toBe(
      'Ran “Suspend by hand”: 1 of 1 step failed (License not found).',
    );
    const latest = failedPage.querySelector('tr[data-run]');
    expect(latest?.querySelector('td[data-label="Result"]')?.textContent).toBe('failed');
    expect(latest?.querySelector('td[data-label="What happened"]')?.textContent).toContain('License not found');

    const list = documentOf(await get('/automations'));
    expect(list.querySelector(`tr[data-automation="${id}"] td[data-label="Last run"]`)?.textContent).toContain(
      'failed',
    );
    // Runs are audited as the API's execute is.
    expect((await auditOf(id)).map((entry) => [entry.action, entry.success])).toEqual([
      ['create', true],
      ['update', false],
      ['update', true],
      ['update', false],
    ]);
  });

  it('disables and enables, and deletes after asking', async () => {
    const created = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Switch me',
        trigger: { event: 'custom' },
        actions: [{ type: 'custom', params: {} }],
      })
      .expect(201);
    const id = created.body.action._id;
    await post(`/automations/${id}/disable`, {}).expect(303);
    let page = documentOf(await get(`/automations/${id}`));
    expect(page.querySelector('[data-state]')?.textContent).toBe('disabled');
    // Its trigger is "Only when run by hand": nothing says it runs by itself.
    expect(page.querySelector('.alert-success')?.textContent).toBe('Automation “Switch me” disabled.');
    await post(`/automations/${id}/enable`, {}).expect(303);
    page = documentOf(await get(`/automations/${id}`));
    expect(page.querySelector('[data-state]')?.textContent).toBe('enabled');
    expect(page.querySelector('.alert-success')?.textContent).toBe(
      'Automation “Switch me” enabled: it runs when you use “Run now”.',
    );
    expect(page.body.textContent).toContain('Enabled: runs only by hand (“Run now” or the API)');
    expect(page.body.textContent).not.toContain('Enabled: runs by itself');
    // The custom action needs no license: "Run now" asks for none.
    expect(page.querySelector('form[aria-label="Run now"] input[name="licenseKey"]')).toBeNull();

    const deleteForm = page.querySelector(`form[action="/automations/${id}/delete"]`);
    expect(deleteForm?.getAttribute('data-ui-confirm')).toContain('Delete the automation “Switch me”?');
    expect(deleteForm?.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value).toBe(admin.csrfToken);
    const removed = await post(`/automations/${id}/delete`, {});
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toBe('/automations');
    expect(documentOf(await get('/automations')).querySelector('.alert-success')?.textContent).toBe(
      'Automation “Switch me” deleted.',
    );
    await t.http.get(`/api/automated-actions/${id}`).set(admin.headers).expect(404);
    expect((await auditOf(id)).map((entry) => entry.action)).toEqual(['create', 'update', 'update', 'delete']);
    await get(`/automations/${id}`, admin, 404);
    expect((await post(`/automations/${id}/delete`, {})).status).toBe(404);
  });

  it('refuses writes without the CSRF token', async () => {
    const created = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Guarded',
        trigger: { event: 'custom' },
        actions: [{ type: 'custom', params: {} }],
      })
      .expect(201);
    const id = created.body.action._id;
    for (const [path, fields] of [
      ['/automations', { name: 'No token', trigger: 'custom', action: 'custom' }],
      [`/automations/${id}`, { name: 'No token', trigger: 'custom', action: 'custom' }],
      [`/automations/${id}/run`, {}],
      [`/automations/${id}/disable`, {}],
      [`/automations/${id}/delete`, {}],
    ] as const) {
      expect((await post(path, fields, admin, false)).status, path).toBe(403);
      expect((await post(path, { ...fields, _csrf: 'forged' }, admin, false)).status, path).toBe(403);
    }
    const action = (await t.http.get(`/api/automated-actions/${id}`).set(admin.headers).expect(200)).body.action;
    expect(action).toMatchObject({ name: 'Guarded', enabled: true, executionCount: 0 });
    const { rows } = await t.database.pool.query(`SELECT 1 FROM automated_actions WHERE name = 'No token'`);
    expect(rows).toHaveLength(0);
  });

  it('pages through many automations and escapes hostile text', async () => {
    for (let n = 0; n < 21; n += 1) {
      await t.http
        .post('/api/automated-actions')
        .set(admin.headers)
        .send({
          name: n === 0 ? HOSTILE : `Paged ${n}`,
          description: HOSTILE,
          trigger: { event: 'custom' },
          actions: [{ type: 'custom', params: { note: HOSTILE } }],
        })
        .expect(201);
    }
    const first = documentOf(await get('/automations'));
    expect(first.querySelectorAll('tr[data-automation]')).toHaveLength(20);
    const next = first.querySelector('.pagination a[rel="next"]')?.getAttribute('href');
    expect(next).toBe('/automations?page=2');
    expect(documentOf(await get(next!)).querySelectorAll('tr[data-automation]').length).toBeGreaterThan(0);
    const past = await t.http.get('/automations?page=9').set('Cookie', admin.cookie).expect(303);
    expect(past.headers.location).toBe('/automations?page=2');
    const hostile = (await t.http.get('/api/automated-actions').set(admin.headers).expect(200)).body.actions.find(
      (action: { name: string }) => action.name === HOSTILE,
    );
    for (const path of [
      '/automations',
      '/automations?page=2',
      `/automations/${hostile._id}`,
      `/automations/${hostile._id}/edit`,
    ]) {
      const document = documentOf(await get(path));
      expect(document.querySelectorAll('script:not([src]):not([type="application/json"])'), path).toHaveLength(0);
      expect(document.querySelectorAll('img[onerror]'), path).toHaveLength(0);
    }
    expect(textOf(await get(`/automations/${hostile._id}`))).toContain(HOSTILE);
  });
});
