import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin license pages');
const day = 86_400_000;

describe.skipIf(!executablePath)(`the admin console's license pages in a browser (${testDatabaseBackend()})`, () => {
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

  const pageOf = (session: Session): Promise<Page> => pageAs(browser, t.baseUrl, session);

  it('filters the list, opens a license, suspends it with a reason, and shows the message and the audit entry; fits a phone', async () => {
    const studio = await t.createProduct({ name: 'Acme Studio Professional', licensePrefix: 'STUDIO' });
    const render = await t.createProduct({ name: 'Render Farm Credits', licensePrefix: 'RENDER' });
    const carol = await t.createCustomer({ name: 'Carol Example Industries', email: 'carol@example.com' });
    const seat = await t.createLicense({
      product: studio._id,
      customer: carol._id,
      ipLimit: 5,
      hwidLimit: 2,
      expiresAt: new Date(Date.now() + 200.5 * day),
    });
    await t.createLicense({ product: studio._id, licenseType: 'trial', expiresAt: new Date(Date.now() + 6.5 * day) });
    await t.createLicense({ product: render._id, customer: carol._id, licenseType: 'consumption', credits: 1000 });
    await t.createLicense({ product: render._id, licenseType: 'enterprise' });
    await t.http
      .post('/api/license/validate')
      .send({ key: seat.key, ip: '198.51.100.20', hwid: 'workstation-with-a-rather-long-hardware-identifier-1' })
      .expect(200);
    const history: unknown[][] = [];
    for (let offset = 1; offset <= 28; offset += 1) {
      for (let n = 0; n < ((offset * 7) % 5) + (offset % 6 === 0 ? 2 : 0); n += 1) {
        const success = n < (offset * 7) % 5;
        history.push([
          seat._id,
          '198.51.100.20',
          success ? 'workstation-1' : 'unknown-box',
          success ? 'success' : 'blocked',
          success ? null : 'Hardware limit reached',
          new Date(Date.now() - offset * day - n * 60_000),
        ]);
      }
    }
    await t.database.pool.query(
      `INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])`,
      [0, 1, 2, 3, 4, 5].map((column) => history.map((values) => values[column])),
    );

    const page = await pageOf(await t.admin());
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Licenses' }).click();
    await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
    const widths: Record<string, number> = {};
    widths.list = await capture(page, 'admin-licenses');

    await page.getByLabel('Product').selectOption({ label: 'Acme Studio Professional' });
    await page.getByLabel('State').selectOption('active');
    await page.getByLabel('Expiring within (days)').fill('365');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: 'Clear filters' }).first().waitFor();
    expect(await page.locator('tr[data-license]').count()).toBe(2);
    await page.getByLabel('Key contains').fill(seat.key.slice(-10));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/search=/);
    expect(await page.locator('tr[data-license]').count()).toBe(1);
    widths.filtered = await capture(page, 'admin-licenses-filtered');

    await page.getByRole('link', { name: seat.key }).click();
    await page.getByRole('heading', { name: /Acme Studio Professional/ }).waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/licenses/${seat._id}`);
    const chart = page.getByRole('img', { name: 'Validations per day, last 30 days' });
    expect(await chart.locator('rect.chart-success').count()).toBeGreaterThan(10);
    widths.detail = await capture(page, 'admin-license');
    // The key copies as in the portal.
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(seat.key);

    const suspend = page.getByRole('form', { name: 'Suspend license' });
    await suspend.getByLabel('Reason').fill('Chargeback under review');
    await suspend.getByRole('button', { name: 'Suspend' }).click();
    await page.getByRole('status').filter({ hasText: 'License suspended.' }).waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/licenses/${seat._id}`);
    const latest = page.locator('table.audit-trail tbody tr').first();
    expect(await latest.locator('td[data-label="Action"]').textContent()).toBe('suspend');
    expect(await latest.locator('td[data-label="Changes"]').textContent()).toContain('Chargeback under review');
    await page.getByRole('button', { name: 'Reactivate' }).waitFor();
    widths.suspended = await capture(page, 'admin-license-suspended');

    // Revoke asks first; cancelling changes nothing.
    const revoke = page.getByRole('form', { name: 'Revoke license' });
    await revoke.getByLabel('Reason').fill('Fraud');
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await t.context.services.licenses.detail(seat._id)).revoked).toBe(false);

    // The dark theme follows the system's choice.
    await page.emulateMedia({ colorScheme: 'dark' });
    widths.dark = await capture(page, 'admin-license-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.goto(`${t.baseUrl}/licenses/new`);
    widths.create = await capture(page, 'admin-license-new');
    expect(widths).toEqual({ list: 390, filtered: 390, detail: 390, suspended: 390, dark: 390, create: 390 });
  });
});
