import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { verifyWebhookSignature } from '@app/events';
import { eventually, startHttpRecorder, type HttpRecorder } from '@app/events/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin console webhook pages');

describe.skipIf(!executablePath)(`the admin console's webhooks in a browser (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: Session;
  let receiver: HttpRecorder;
  beforeAll(async () => {
    receiver = await startHttpRecorder();
    // The receiver is on loopback: allowed here only because the test says so.
    t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    admin = await t.admin();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('adds an endpoint, reads its secret once, sends a test, sees it delivered with 200 in the log, redelivers it, rotates the secret and deletes the endpoint', async () => {
    const page = await pageAs(browser, t.baseUrl, admin);
    page.setDefaultTimeout(20_000);
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
    expect(
      await page
        .getByRole('navigation', { name: 'Webhooks' })
        .getByRole('link', { name: 'Notification channels' })
        .getAttribute('href'),
    ).toBe('/webhooks/channels');
    expect(await capture(page, 'admin-webhooks-empty')).toBeLessThanOrEqual(390);

    await page.getByRole('link', { name: 'Add endpoint' }).first().click();
    await page.getByRole('heading', { name: 'Add webhook endpoint' }).waitFor();
    expect(await capture(page, 'admin-webhook-new')).toBeLessThanOrEqual(390);
    await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
    await page.getByLabel('License created').check();
    await page.getByLabel('License revoked').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    // The secret, once, with a copy button.
    await page.getByText('you will not see it again').waitFor();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^whsec_/);
    expect(await capture(page, 'admin-webhook-secret')).toBeLessThanOrEqual(390);
    await page.reload();
    await page.getByText('This secret was shown once and cannot be shown again.').waitFor();
    expect(await page.getByText(secret).count()).toBe(0);

    await page.getByRole('link', { name: 'Back to webhooks' }).click();
    const row = page.getByRole('row').filter({ hasText: `${receiver.url}/hooks` });
    await row.getByText('License created, License revoked').waitFor();
    await row.getByText('enabled').waitFor();
    await row.getByText('none yet').waitFor();
    expect(await capture(page, 'admin-webhooks')).toBeLessThanOrEqual(390);

    // "Send test": queued to the endpoint, delivered, signed with its secret, shown in the log with 200.
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test delivery queued (event webhook.test).').waitFor();
    const hook = await eventually(() =>
      receiver.requests.find((request) => JSON.parse(request.body).event === 'webhook.test'),
    );
    expect(
      verifyWebhookSignature({ header: String(hook.headers['x-webhook-signature']), body: hook.body, secret }),
    ).toBe(true);
    const delivery = page.getByRole('row').filter({ hasText: 'webhook.test' });
    await eventually(async () => {
      await page.reload();
      return (await delivery.getByText('delivered', { exact: true }).count()) > 0;
    });
    expect((await delivery.textContent())?.replace(/\s+/g, ' ')).toMatch(/Response code\s*200|200/);
    expect(await delivery.getByText('200', { exact: true }).count()).toBe(1);
    expect(await capture(page, 'admin-webhook-deliveries')).toBeLessThanOrEqual(390);

    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Delivery queued again.').waitFor();
    await eventually(
      () =>
        receiver.requests.filter((request) => request.headers['x-webhook-id'] === hook.headers['x-webhook-id'])
          .length >= 2,
    );
    await page.getByRole('link', { name: 'Failed' }).click();
    await page.getByText('No failed deliveries.').waitFor();

    // Rotate asks first, then shows the new secret once.
    await page.getByRole('navigation', { name: 'Webhooks' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('you will not see it again').waitFor();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const rotated = await page.evaluate(() => navigator.clipboard.readText());
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    // Delete asks first; "Cancel" keeps it.
    await page.getByRole('link', { name: 'Back to webhooks' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await row.waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText(`Endpoint ${receiver.url}/hooks deleted.`).waitFor();
    await page.getByText('No webhook endpoints yet.').waitFor();
    await page.context().close();
  }, 120_000);
});
