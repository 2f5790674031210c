import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// A user's first day (issue 32), in a browser: error pages instead of raw JSON, a linked
// customer who types /licenses, and the console's words for automations, endpoints and channels.

const executablePath = chromiumForTests('first-day pages');

describe.skipIf(!executablePath)(`a user's first day in a browser (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let withoutSignIn: TestApp;
  let browser: Browser;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp();
    withoutSignIn = await buildTestApp({ withoutSignIn: true, database: t.database });
    admin = await t.admin();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await withoutSignIn?.close();
    await t?.close();
  });
  const pageOf = async (baseUrl: string, session?: Session): Promise<Page> => {
    const page = await pageAs(browser, baseUrl, session);
    page.setDefaultTimeout(10_000); // a missing text fails with its locator, well before the test's timeout
    return page;
  };

  it('"Download license file" of a suspended license shows a page with the reason and a way back, not JSON', async () => {
    const { customer, session } = await t.customer({ name: 'Dana Downloader' });
    const license = await t.createLicense({ customer: customer._id });
    await t.http
      .post(`/api/licenses/${license._id}/suspend`)
      .set(admin.headers)
      .send({ reason: 'Invoice 2024-117 is unpaid' })
      .expect(200);
    const page = await pageOf(t.baseUrl, session);
    await page.goto(`${t.baseUrl}/my-licenses/${license._id}`);
    await page.getByRole('link', { name: 'Download license file' }).click();
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    await page.getByText('Reason: Invoice 2024-117 is unpaid').waitFor();
    expect(await page.locator('body').textContent()).not.toContain('"success"');
    expect(await capture(page, 'error-page-download')).toBe(390);
    await page.getByRole('link', { name: 'Back to the license' }).click();
    await page.waitForURL(`${t.baseUrl}/my-licenses/${license._id}`);

    // A license that may have a file still downloads it, and the page stays.
    const good = await t.createLicense({ customer: customer._id });
    await page.goto(`${t.baseUrl}/my-licenses/${good._id}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download license file' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${good.key}.lic.json`);
  });

  it('signing in without OAuth settings shows a page naming the variables', async () => {
    const page = await pageOf(withoutSignIn.baseUrl);
    await page.goto(`${withoutSignIn.baseUrl}/`);
    await page
      .getByRole('link', { name: /Sign in/ })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Service unavailable' }).waitFor();
    await page
      .getByText(/Sign-in is not configured: set OAUTH_AUTHORIZATION_URL, .* and OAUTH_CLIENT_SECRET/)
      .waitFor();
    expect(await capture(page, 'error-page-sign-in')).toBe(390);
  });

  it('a linked customer who opens /licenses sees their licenses', async () => {
    const { customer, session } = await t.customer({ name: 'Linked Lee' });
    const license = await t.createLicense({ customer: customer._id });
    const page = await pageOf(t.baseUrl, session);
    await page.goto(`${t.baseUrl}/licenses`);
    await page.getByRole('heading', { name: 'Your licenses' }).waitFor();
    await page.getByText(license.key).first().waitFor();
    expect(await page.getByText('link your account').count()).toBe(0);
    expect(await capture(page, 'customer-opens-licenses')).toBe(390);
  });

  it('the console names automations, endpoints and channels in words', async () => {
    const page = await pageOf(t.baseUrl, admin);
    // An automation run by hand.
    await page.goto(`${t.baseUrl}/automations/new`);
    await page.getByRole('heading', { name: 'New automation', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'About it' }).getByLabel('Name').fill('Weekly audit by hand');
    await page.getByLabel('Only when run by hand').check();
    await page.getByRole('button', { name: /Create automation/ }).click();
    await page.getByText('Enabled: runs only by hand (“Run now” or the API)').waitFor();
    expect(await page.getByText('Enabled: runs by itself').count()).toBe(0);
    expect(await capture(page, 'automation-by-hand')).toBe(390);

    // A refused webhook URL says how to allow it.
    await page.goto(`${t.baseUrl}/webhooks/new`);
    await page.getByLabel('URL').fill('http://127.0.0.1:9/hooks');
    await page.getByRole('button', { name: /Add endpoint/ }).click();
    await page.getByText(/Webhook URL not allowed\. .*WEBHOOK_ALLOW_PRIVATE=true/).waitFor();
    expect(await capture(page, 'webhook-url-refused')).toBe(390);

    // The audit log says which automation.
    await page.goto(`${t.baseUrl}/audit-log`);
    await page.getByRole('link', { name: 'Automation: Weekly audit by hand' }).first().waitFor();
    expect(await capture(page, 'audit-named-resources')).toBe(390);

    // A channel that receives nothing says how to route notifications to it.
    await page.goto(`${t.baseUrl}/webhooks/channels`);
    await page
      .getByText(
        /Receives no notifications yet\. To send some here, add sms to one of the environment variables NOTIFY_/,
      )
      .waitFor();
    expect(await capture(page, 'channels-receives')).toBe(390);
  });
});
