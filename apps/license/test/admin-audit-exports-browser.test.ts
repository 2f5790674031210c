import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin console audit log and exports pages');

describe.skipIf(!executablePath)(
  `the admin console's audit log and exports in a browser (${testDatabaseBackend()})`,
  () => {
    let t: TestApp;
    let browser: Browser;
    let admin: Session;
    beforeAll(async () => {
      t = await buildTestApp();
      admin = await t.admin();
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    });
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    const pageOf = (session: Session): Promise<Page> => pageAs(browser, t.baseUrl, session);
    const nav = (page: Page) => page.getByRole('navigation', { name: 'Admin console' });

    it('opens the audit log from the navigation, filters it by action and opens an entry', async () => {
      // Nothing recorded yet (the admin's sign-in entry removed): the empty state.
      await t.database.pool.query('DELETE FROM audit_logs');
      const page = await pageOf(admin);
      await page.goto(`${t.baseUrl}/`);
      await nav(page).getByRole('link', { name: 'Audit log' }).click();
      await page.getByText('No audit entries yet.').waitFor();
      expect(await capture(page, 'admin-audit-empty')).toBeLessThanOrEqual(390);

      // Changes made through the console's own forms are what the log shows.
      await page.goto(`${t.baseUrl}/customers`);
      await page.getByLabel('Name', { exact: true }).fill('Дмитрий Иванов');
      await page.getByLabel('Email', { exact: true }).fill('dmitri@example.com');
      await page.getByRole('button', { name: 'Create customer' }).click();
      await page.getByRole('status').getByText('Customer “Дмитрий Иванов” created.').waitFor();
      const product = await t.createProduct({ name: 'Photo Suite' });
      const license = await t.createLicense({ product: product._id });
      await page.goto(`${t.baseUrl}/licenses/${license._id}`);
      await page.getByLabel('Reason').first().fill('Chargeback <b>pending</b>');
      await page.getByRole('button', { name: 'Suspend' }).click();
      await page.getByRole('status').getByText('License suspended.').waitFor();

      await nav(page).getByRole('link', { name: 'Audit log' }).click();
      await page.locator('tr[data-audit]').first().waitFor();
      expect(await capture(page, 'admin-audit-list')).toBeLessThanOrEqual(390);

      // A select's label reads its options too ("Resource type … transaction"): the label starts with the name.
      await page.getByLabel(/^Action/).selectOption('suspend');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('1 entry matches the filters').waitFor();
      expect(new URL(page.url()).searchParams.get('action')).toBe('suspend');
      await expect.poll(() => page.locator('tr[data-audit]').count()).toBe(1);
      await page.getByRole('link', { name: 'suspend', exact: true }).click();

      await page.getByRole('heading', { level: 1, name: /suspend license/ }).waitFor();
      expect(await page.locator('pre[data-json="after"]').textContent()).toContain(
        '"suspendReason": "Chargeback <b>pending</b>"',
      );
      await page.getByRole('link', { name: license._id }).waitFor();
      expect(await capture(page, 'admin-audit-entry')).toBeLessThanOrEqual(390);
      await page.getByRole('link', { name: license._id }).click();
      await page.waitForURL(`${t.baseUrl}/licenses/${license._id}`);
    }, 120_000);

    it('opens the exports page, fills a filter and downloads the file', async () => {
      const product = await t.createProduct({ name: 'Ελληνικό προϊόν' });
      const wanted = await t.createLicense({ product: product._id, licenseType: 'trial' });
      const unwanted = await t.createLicense({ product: product._id, licenseType: 'fixed' });
      const page = await pageOf(admin);
      await page.goto(`${t.baseUrl}/`);
      await nav(page).getByRole('link', { name: 'Exports' }).click();
      await page.getByRole('heading', { level: 1, name: 'Exports' }).waitFor();
      expect(await capture(page, 'admin-exports')).toBeLessThanOrEqual(390);

      const csvForm = page.getByRole('region', { name: 'Licenses CSV' });
      await csvForm.getByLabel('Product').selectOption({ label: 'Ελληνικό προϊόν' });
      await csvForm.getByLabel('License type').selectOption('trial');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        csvForm.getByRole('button', { name: 'Download licenses CSV' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^licenses-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = await readFile(await download.path(), 'utf8');
      expect(csv).toContain(wanted.key);
      expect(csv).not.toContain(unwanted.key);
      expect(csv).toContain('Ελληνικό προϊόν');

      const summary = page.getByRole('region', { name: 'Summary report PDF' });
      const [pdf] = await Promise.all([
        page.waitForEvent('download'),
        summary.getByRole('button', { name: 'Download summary PDF' }).click(),
      ]);
      expect(pdf.suggestedFilename()).toMatch(/^summary-\d{4}-\d{2}-\d{2}\.pdf$/);
      expect((await readFile(await pdf.path())).subarray(0, 5).toString()).toBe('%PDF-');
    }, 120_000);
  },
);
