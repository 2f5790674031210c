import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type TestApp } from './helpers.js';

// Grace and expiry strategies as an admin sets them: the policy form, the license page's "Grace
// and expiry" form, and what the customer's license page says. Fields by their labels, buttons by
// their names, screenshots at 1280 and 390 px.

const executablePath = chromiumForTests('grace pages');

describe.skipIf(!executablePath)(`grace and expiry in a browser (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await buildTestApp();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const submit = (page: Page, name: string) =>
    Promise.all([page.waitForEvent('load'), page.getByRole('button', { name, exact: true }).click()]);

  it('sets grace on a policy and a license, and the customer sees the grace', async () => {
    const product = await t.createProduct({ name: 'Acme Graceful' });
    const page = await pageAs(browser, t.baseUrl, await t.admin());
    const widths: Record<string, number> = {};

    await page.goto(`${t.baseUrl}/policies`);
    await page.getByLabel('Product').selectOption({ label: 'Acme Graceful' });
    await page.getByLabel('Name', { exact: true }).fill('Kept after expiry');
    await page.getByLabel('Grace period (days)').fill('14');
    await page.getByLabel('After expiry').selectOption('maintain');
    await submit(page, 'Create policy');
    await page.getByText('Policy “Kept after expiry” created.').waitFor();
    expect(await page.locator('[data-grace]').textContent()).toBe('14 days');
    expect(await page.locator('[data-strategy]').textContent()).toBe('maintain');
    widths.policy = await capture(page, 'grace-policy');

    const { customer, session } = await t.customer({ name: 'Gina Grace' });
    const license = await t.createLicense({
      product: product._id,
      customer: customer._id,
      expiresAt: new Date(Date.now() - 86_400_000),
    });
    await page.goto(`${t.baseUrl}/licenses/${license._id}`);
    const form = page.getByRole('form', { name: 'Grace and expiry' });
    await form.getByLabel('Grace period (days)').fill('5');
    await form.getByLabel('After expiry').selectOption('revoke');
    await submit(page, 'Save grace and expiry');
    await page.getByText('Grace and expiry saved: 5 days of grace, then revoke.').waitFor();
    expect(await page.locator('[data-term]').textContent()).toMatch(/^Grace until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    widths.license = await capture(page, 'grace-license');

    const portal = await pageAs(browser, t.baseUrl, session);
    await portal.goto(`${t.baseUrl}/my-licenses/${license._id}`);
    expect(await portal.locator('[data-term]').textContent()).toMatch(/^Grace until /);
    widths.portal = await capture(portal, 'grace-portal');

    // Nothing overflows sideways at 390 px.
    expect(Object.values(widths)).toEqual(Object.values(widths).map(() => 390));
  });
});
