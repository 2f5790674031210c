import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin automation pages');

describe.skipIf(!executablePath)(`the admin console's automation pages in a browser (${testDatabaseBackend()})`, () => {
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

  it(
    'creates an automation with the form, lists it, runs it now and shows the run, edits it; fits a phone',
    { timeout: 180_000 },
    async () => {
      const product = await t.createProduct({ name: 'Acme Studio Professional', licensePrefix: 'STUDIO' });
      const license = await t.createLicense({ product: product._id });
      const page = await pageAs(browser, t.baseUrl, await t.admin());
      page.setDefaultTimeout(30_000);
      const widths: Record<string, number> = {};

      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Automations' }).click();
      await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
      await page.getByText('No automations yet.').waitFor();
      widths.empty = await capture(page, 'admin-automations-empty');

      await page.getByRole('link', { name: 'New automation' }).first().click();
      await page.getByRole('heading', { name: 'New automation', level: 1 }).waitFor();
      const about = page.getByRole('region', { name: 'About it' });
      // Sent without a name or a threshold: the server's errors, the values kept.
      await about.getByLabel('Description').fill('Stops a license that keeps being used on other computers.');
      await page.getByLabel('A license reaches a number of blocked validations').check();
      await page.getByRole('button', { name: 'Create automation' }).click();
      const errors = page.getByRole('alert');
      await errors.getByText('Name: enter 1 to 200 characters.').waitFor();
      await errors.getByText('How many blocked validations: enter a whole number from 1 to 1,000,000.').waitFor();
      expect(await about.getByLabel('Description').inputValue()).toBe(
        'Stops a license that keeps being used on other computers.',
      );
      expect(await page.getByLabel('A license reaches a number of blocked validations').isChecked()).toBe(true);
      widths.errors = await capture(page, 'admin-automation-form-errors');
      await about.getByLabel('Name').fill('Suspend abusive licenses');
      // The script shows only the chosen trigger's and action's fields.
      const threshold = page.getByRole('group', { name: /Threshold/ });
      await threshold.getByLabel('How many blocked validations').fill('5');
      await page.getByLabel('Suspend the license', { exact: true }).check();
      const suspend = page.getByRole('group', { name: /Suspend the license/ });
      await suspend.getByLabel('Reason').fill('Used on too many computers');
      expect(await page.getByRole('group', { name: /Call a webhook/ }).count()).toBe(0);
      await page.getByLabel('Call a webhook').check();
      await page
        .getByRole('group', { name: /Call a webhook/ })
        .getByLabel('Webhook URL')
        .waitFor();
      expect(await page.getByRole('group', { name: /Suspend the license/ }).count()).toBe(0);
      await page.getByLabel('Suspend the license', { exact: true }).check();
      await suspend.getByLabel('Reason').waitFor();
      widths.form = await capture(page, 'admin-automation-form');

      await page.getByRole('button', { name: 'Create automation' }).click();
      await page.getByRole('status').filter({ hasText: 'Automation “Suspend abusive licenses” created.' }).waitFor();
      await page.getByText('A license reaches 5 blocked validations').first().waitFor();

      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Automations' }).click();
      await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Suspend abusive licenses' });
      await row.getByText('Suspend the license').waitFor();
      expect(await row.getByText('never').count()).toBe(1);
      widths.list = await capture(page, 'admin-automations');

      await page.getByRole('link', { name: 'Suspend abusive licenses' }).click();
      await page.getByRole('heading', { name: /Suspend abusive licenses/, level: 1 }).waitFor();
      await page.getByText('It has not run yet.').waitFor();
      const run = page.getByRole('form', { name: 'Run now' });
      await run.getByLabel('License key').fill(license.key);
      await run.getByRole('button', { name: 'Run now' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Run now' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `License ${license.key} suspended` })
        .waitFor();
      const runs = page.getByRole('table', { name: /Runs of this automation/ });
      await runs.getByText('succeeded').waitFor();
      await runs.getByText(`License ${license.key} suspended`).waitFor();
      expect((await t.context.services.licenses.detail(license._id)).suspendReason).toBe('Used on too many computers');
      widths.detail = await capture(page, 'admin-automation');

      await page.getByRole('link', { name: 'Edit automation' }).click();
      await page.getByRole('heading', { name: 'Edit “Suspend abusive licenses”', level: 1 }).waitFor();
      expect(await page.getByLabel('How many blocked validations').inputValue()).toBe('5');
      await page.getByRole('region', { name: 'About it' }).getByLabel('Name').fill('Suspend very abusive licenses');
      await page.getByLabel('How many blocked validations').fill('20');
      await page.getByRole('button', { name: 'Save automation' }).click();
      await page.getByRole('status').filter({ hasText: 'Automation “Suspend very abusive licenses” saved.' }).waitFor();
      await page.getByText('A license reaches 20 blocked validations').first().waitFor();

      await page.goto(`${t.baseUrl}/automations`);
      await page.getByRole('row').filter({ hasText: 'Suspend very abusive licenses' }).getByText('succeeded').waitFor();
      widths.listRun = await capture(page, 'admin-automations-run');
      expect(widths).toEqual({ empty: 390, errors: 390, form: 390, list: 390, detail: 390, listRun: 390 });
    },
  );
});
