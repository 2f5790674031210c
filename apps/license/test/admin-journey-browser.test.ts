import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { eventually, startHttpRecorder, type HttpRecorder } from '@app/events/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture } from './browser.js';
import { buildTestApp, testAdminId, type TestApp } from './helpers.js';

const executablePath = chromiumForTests("an admin's first hour in the console");

/**
 * An admin's first hour, as one person in one browser, by visible labels and button texts only:
 * sign in through the identity provider's page, create a product, a customer and a license,
 * suspend the license with a reason and find it in its audit trail and in the audit log, add a
 * webhook endpoint that receives a test delivery, and make an automation and run it.
 */
describe.skipIf(!executablePath)(`an admin's first hour in the console (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let receiver: HttpRecorder;
  beforeAll(async () => {
    receiver = await startHttpRecorder();
    // The webhook receiver listens on loopback, which outgoing URLs may not reach otherwise.
    t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('signs in, creates a product, a customer and a license, suspends it, and finds the suspension in the audit trail', async () => {
    const page = await (await browser.newContext()).newPage();
    const nav = page.getByRole('navigation', { name: 'Admin console' });
    const flash = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();

    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('User id').fill(testAdminId);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await nav.waitFor();

    await nav.getByRole('link', { name: 'Products' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Acme Studio Professional');
    await page.getByLabel('License prefix').fill('STUDIO');
    await page.getByRole('button', { name: 'Create product' }).click();
    await flash('Product “Acme Studio Professional” created.');

    await nav.getByRole('link', { name: 'Customers' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Zoë Ångström Industries');
    await page.getByLabel('Email', { exact: true }).fill('zoe@example.com');
    await page.getByRole('button', { name: 'Create customer' }).click();
    await flash('Customer “Zoë Ångström Industries” created.');

    await nav.getByRole('link', { name: 'Licenses' }).click();
    await page.getByRole('link', { name: 'New license' }).first().click();
    await page.getByLabel('Product').selectOption({ label: 'Acme Studio Professional' });
    await page.getByLabel('Customer').selectOption({ label: 'Zoë Ångström Industries (zoe@example.com)' });
    await page.getByLabel('IP limit').fill('3');
    await page.getByLabel('Hardware limit').fill('2');
    await page.getByRole('button', { name: 'Create license' }).click();
    await flash(/License STUDIO-.* created\./);
    const key =
      (await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('code').textContent())?.trim() ?? '';
    expect(key).toMatch(/^STUDIO-/);
    await t.http.post('/api/license/validate').send({ key, ip: '198.51.100.20', hwid: 'workstation-1' }).expect(200);

    // Opened again from the list, as an admin finds it the next day.
    await nav.getByRole('link', { name: 'Licenses' }).click();
    await page.getByLabel('Key contains').fill(key.slice(-8));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: key }).click();
    const suspend = page.getByRole('form', { name: 'Suspend license' });
    await suspend.getByLabel('Reason').fill('Chargeback under review');
    await suspend.getByRole('button', { name: 'Suspend' }).click();
    await flash('License suspended.');
    const trail = page.getByRole('region', { name: 'Audit trail' });
    await trail.getByText('suspend').first().waitFor();
    await trail.getByText('Chargeback under review').first().waitFor();
    expect(await capture(page, 'journey-license-suspended')).toBeLessThanOrEqual(390);
    await t.http.post('/api/license/validate').send({ key, ip: '198.51.100.20', hwid: 'workstation-1' }).expect(403);

    await nav.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel(/^Action/).selectOption('suspend');
    await page.getByRole('button', { name: 'Filter' }).click();
    const entry = page.getByRole('row').filter({ hasText: 'license' }).filter({ hasText: 'suspend' });
    expect(await entry.count()).toBe(1);
    await entry.getByRole('link').first().click();
    await page.getByText('Chargeback under review').first().waitFor();
    expect(await capture(page, 'journey-audit-entry')).toBeLessThanOrEqual(390);

    // Webhooks: an endpoint, its secret shown once, a test delivery that arrives and is logged.
    await nav.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: 'Add endpoint' }).first().click();
    await page.getByLabel('URL').fill(`${receiver.url}/license-events`);
    await page.getByLabel('License revoked').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('you will not see it again').waitFor();
    await page.getByRole('link', { name: 'Back to webhooks' }).click();
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test delivery queued (event webhook.test).').waitFor();
    await eventually(() => receiver.requests.some((request) => request.path === '/license-events'));
    await page.getByRole('navigation', { name: 'Webhooks' }).getByRole('link', { name: 'Delivery log' }).click();
    const delivery = page.getByRole('row').filter({ hasText: 'webhook.test' });
    await eventually(async () => {
      await page.reload();
      return (await delivery.getByText('delivered', { exact: true }).count()) > 0;
    });
    expect(await capture(page, 'journey-webhook-delivered')).toBeLessThanOrEqual(390);

    // Automations: one run by hand that suspends the license it is given, with its run listed.
    await nav.getByRole('link', { name: 'Licenses' }).click();
    await page.getByRole('link', { name: key }).click();
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await flash('License reactivated.');
    await nav.getByRole('link', { name: 'Automations' }).click();
    await page.getByRole('link', { name: 'New automation' }).first().click();
    await page.getByRole('region', { name: 'About it' }).getByLabel('Name').fill('Suspend on request');
    await page.getByLabel('Only when run by hand').check();
    await page.getByLabel('Suspend the license', { exact: true }).check();
    await page
      .getByRole('group', { name: /Suspend the license/ })
      .getByLabel('Reason')
      .fill('Asked by support');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await flash('Automation “Suspend on request” created.');
    const run = page.getByRole('form', { name: 'Run now' });
    await run.getByLabel('License key').fill(key);
    await run.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Run now' }).click();
    await flash(`License ${key} suspended`);
    await page
      .getByRole('table', { name: /Runs of this automation/ })
      .getByText('succeeded')
      .waitFor();
    expect(await capture(page, 'journey-automation-run')).toBeLessThanOrEqual(390);
    await t.http.post('/api/license/validate').send({ key, ip: '198.51.100.20', hwid: 'workstation-1' }).expect(403);
  }, 300_000);
});
