import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { receivesText } from '../src/notification-channels/notification-channels.page-data.js';
import { documentOf, textOf } from '@app/ui/testing/dom';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// The console's words for things the API keeps generic: which automation or webhook endpoint an
// audit entry is about, what an automation's "enabled" means, how a channel gets notifications,
// and one spelling of the license types.

describe(`console labels (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });
  const page = async (path: string) => {
    const res = await t.http.get(path).set('Cookie', admin.cookie);
    expect(res.status, path).toBe(200);
    return res.text;
  };

  it('the audit log names the automation and the webhook endpoint an entry is about, also once deleted', async () => {
    const automation = (
      await t.http
        .post('/api/automated-actions')
        .set(admin.headers)
        .send({
          name: 'Nightly cleanup',
          trigger: { event: 'custom' },
          actions: [{ type: 'custom', params: {} }],
        })
        .expect(201)
    ).body.action;
    const endpoint = (
      await t.http
        .post('/api/webhooks/endpoints')
        .set(admin.headers)
        .send({ url: 'http://127.0.0.1:9/receiver' })
        .expect(201)
    ).body.endpoint;
    const doomed = (
      await t.http
        .post('/api/automated-actions')
        .set(admin.headers)
        .send({
          name: 'Short-lived',
          trigger: { event: 'custom' },
          actions: [{ type: 'custom', params: {} }],
        })
        .expect(201)
    ).body.action;
    await t.http.delete(`/api/automated-actions/${doomed._id}`).set(admin.headers).expect(200);

    const list = documentOf(await page('/audit-log'));
    const resources = [...list.querySelectorAll('td[data-label="Resource"]')].map((cell) =>
      cell.textContent?.replace(/\s+/g, ' ').trim(),
    );
    expect(resources).toContain('Automation: Nightly cleanup');
    expect(resources).toContain('Webhook endpoint: http://127.0.0.1:9/receiver');
    expect(resources).toContain('Automation: Short-lived');
    expect(resources).not.toContain('system');
    expect(resources.some((text) => /^notification\b/.test(text ?? ''))).toBe(false);
    expect(
      list.querySelector('td[data-label="Resource"] a[href="/automations/' + automation._id + '"]')?.textContent,
    ).toBe('Automation: Nightly cleanup');

    // The API keeps the spec's resource types.
    const api = await t.http.get('/api/audit').query({ resourceId: automation._id }).set(admin.headers).expect(200);
    expect(api.body.auditLogs[0]).toMatchObject({ resourceType: 'system', resourceId: automation._id });
    const entry = await page(`/audit-log/${api.body.auditLogs[0]._id}`);
    expect(documentOf(entry).querySelector('h1')?.textContent).toContain('Automation: Nightly cleanup');
    const endpointEntry = (await t.http.get('/api/audit').query({ resourceId: endpoint._id }).set(admin.headers)).body
      .auditLogs[0];
    expect(textOf(await page(`/audit-log/${endpointEntry._id}`))).toContain(
      'Webhook endpoint: http://127.0.0.1:9/receiver',
    );
  });

  it('an automation that runs only by hand never says it runs by itself; one with a trigger does', async () => {
    const manual = (
      await t.http
        .post('/api/automated-actions')
        .set(admin.headers)
        .send({
          name: 'By hand',
          enabled: true,
          trigger: { event: 'custom' },
          actions: [{ type: 'custom', params: {} }],
        })
        .expect(201)
    ).body.action;
    const manualText = textOf(await page(`/automations/${manual._id}`));
    expect(manualText).toContain('Enabled: runs only by hand (“Run now” or the API)');
    expect(manualText).not.toContain('Enabled: runs by itself');
    const triggered = (
      await t.http
        .post('/api/automated-actions')
        .set(admin.headers)
        .send({
          name: 'On creation',
          enabled: true,
          trigger: { event: 'license_created' },
          actions: [{ type: 'custom', params: {} }],
        })
        .expect(201)
    ).body.action;
    expect(textOf(await page(`/automations/${triggered._id}`))).toContain(
      'Enabled: runs by itself when its trigger happens',
    );
  });

  it('the automation form\'s "Enabled" box does not promise that it runs by itself whatever the trigger', async () => {
    const form = documentOf(await page('/automations/new'));
    const box = form.querySelector('input[type="checkbox"][name="enabled"]')!;
    expect(box.closest('label')?.textContent?.trim()).toBe('Enabled');
    expect((form.body.textContent ?? '').replace(/\s+/g, ' ')).toContain(
      'one whose trigger is “Only when run by hand” runs only with “Run now” or the API',
    );
  });

  it('a channel that receives nothing says so in a sentence naming the NOTIFY_ variables', async () => {
    const routing = { license_expiring: [], license_violation: ['email' as const], custom: [] };
    expect(receivesText('email', routing)).toBe('Receives: license violation.');
    expect(receivesText('sms', routing)).toBe(
      'Receives no notifications yet. To send some here, add sms to one of the environment variables ' +
        'NOTIFY_LICENSE_EXPIRING, NOTIFY_LICENSE_VIOLATION, NOTIFY_CUSTOM (for example NOTIFY_LICENSE_VIOLATION=sms) and restart the service.',
    );
    const text = textOf(await page('/webhooks/channels'));
    expect(text).toContain(
      'Receives no notifications yet. To send some here, add telegram to one of the environment variables NOTIFY_LICENSE_EXPIRING,',
    );
    expect(text).not.toContain('NOTIFY_<KIND>');
  });

  it('writes license types one way: Fixed, Trial, Consumption, Enterprise', async () => {
    await t.createLicense({ licenseType: 'fixed' });
    const dashboard = documentOf(await page('/'));
    const cell = dashboard.querySelector('td[data-label="Type"]');
    expect(cell?.classList.contains('type')).toBe(true); // the stylesheet capitalises `.type`
    for (const path of ['/licenses', '/licenses/new', '/exports']) {
      const options = [...documentOf(await page(path)).querySelectorAll('option')].map((option) => option.textContent);
      expect(options, path).toEqual(expect.arrayContaining(['Fixed', 'Trial', 'Consumption', 'Enterprise']));
      expect(options, path).not.toContain('fixed');
    }
  });
});
