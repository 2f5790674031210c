import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs, screenshotFolder } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('customer portal pages');
const day = 86_400_000;

describe.skipIf(!executablePath)(`the customer portal in a browser (${testDatabaseBackend()})`, () => {
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

  it("copies a key, shows a license's chart and records, and fits a phone", async () => {
    const { customer, session } = await t.customer({ name: 'Carol Example Industries' });
    const studio = await t.createProduct({
      name: 'Acme Studio Professional',
      licensePrefix: 'STUDIO',
      description: 'Desktop suite for image and video editing',
    });
    const render = await t.createProduct({
      name: 'Render Farm Credits',
      licensePrefix: 'RENDER',
      description: 'Cloud rendering, one credit per validated job',
    });
    const seat = await t.createLicense({
      product: studio._id,
      customer: customer._id,
      ipLimit: 5,
      hwidLimit: 2,
      expiresAt: new Date(Date.now() + 200.5 * day),
    });
    const credits = await t.createLicense({
      product: render._id,
      customer: customer._id,
      licenseType: 'consumption',
      credits: 1000,
      ipLimit: 3,
      hwidLimit: 3,
    });
    await t.createLicense({
      product: studio._id,
      customer: customer._id,
      licenseType: 'trial',
      expiresAt: new Date(Date.now() - 4.5 * day),
    });
    await t.createLicense({ product: studio._id, customer: customer._id, licenseType: 'enterprise' });
    for (const [ip, hwid] of [
      ['203.0.113.7', 'render-node-7'],
      ['203.0.113.8', 'render-node-8-with-a-rather-long-hardware-identifier'],
    ]) {
      await t.http.post('/api/license/validate').send({ key: credits.key, ip, hwid }).expect(200);
    }
    await t.http
      .post('/api/license/validate')
      .send({ key: seat.key, ip: '198.51.100.20', hwid: 'workstation-1' })
      .expect(200);
    // A month of history in one statement: a few successes most days, some failures.
    const history: unknown[][] = [];
    for (let offset = 1; offset <= 40; offset += 1) {
      const successes = (offset * 7) % 5;
      const failures = offset % 6 === 0 ? 2 : offset % 9 === 0 ? 1 : 0;
      for (let n = 0; n < successes + failures; n += 1) {
        const success = n < successes;
        history.push([
          credits._id,
          '203.0.113.7',
          success ? 'render-node-7' : 'unknown-box',
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
    // As validation would have spent them: one credit per success.
    await t.database.pool.query('UPDATE licenses SET credits_used = credits_used + $2 WHERE id = $1', [
      credits._id,
      history.filter((values) => values[3] === 'success').length,
    ]);

    const page = await pageOf(session);
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('heading', { name: 'Your licenses' }).waitFor();
    const widths: Record<string, number> = {};

    // The Copy key button puts the key on the clipboard.
    const row = page.locator(`tr[data-license="${seat._id}"]`);
    await row.getByRole('button', { name: 'Copy key' }).click();
    await row.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(seat.key);
    await row.getByRole('button', { name: 'Copy key' }).waitFor({ timeout: 5000 });
    // At 1280 px the table fits its card: nothing to scroll sideways.
    expect(await page.locator('.table-scroll').evaluate((element) => element.scrollWidth - element.clientWidth)).toBe(
      0,
    );
    widths.list = await capture(page, 'customer-licenses');

    // At 390 px each license is a card with every field in view.
    await page.setViewportSize({ width: 390, height: 844 });
    const card = page.locator(`tr[data-license="${credits._id}"]`);
    for (const label of ['Product', 'Key', 'Type', 'State', 'Expires', 'Credits']) {
      expect(await card.locator(`td[data-label="${label}"]`).isVisible(), label).toBe(true);
    }
    expect(await card.evaluate((element) => getComputedStyle(element).display)).toBe('block');

    // The license page: the chart and the records.
    await page.setViewportSize({ width: 1280, height: 800 });
    await card.getByRole('link', { name: /Details/ }).click();
    await page.getByRole('heading', { name: /Render Farm Credits/ }).waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/my-licenses/${credits._id}`);
    const chart = page.getByRole('img', { name: 'Validations per day, last 30 days' });
    expect(await chart.evaluate((element) => element.tagName.toLowerCase())).toBe('svg');
    expect(await chart.locator('rect.chart-success').count()).toBeGreaterThan(10);
    expect(await page.locator('table.records tbody tr').count()).toBe(25);
    expect(await page.locator('#devices code').allTextContents()).toEqual([
      '203.0.113.7',
      '203.0.113.8',
      'render-node-7',
      'render-node-8-with-a-rather-long-hardware-identifier',
    ]);
    widths.detail = await capture(page, 'customer-license');
    // The chart's colours follow the theme.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(
      await chart
        .locator('rect.chart-success')
        .first()
        .evaluate((element) => getComputedStyle(element).fill),
    ).toBe('rgb(134, 239, 172)');
    await page.screenshot({ path: path.join(screenshotFolder, 'license-customer-license-dark-1280.png') });
    await page.emulateMedia({ colorScheme: 'light' });

    // The range selector and the date filter, through the page's own controls.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('navigation', { name: 'Chart range' }).getByRole('link', { name: '7 days' }).click();
    await page.getByRole('img', { name: 'Validations per day, last 7 days' }).waitFor();
    const from = new Date(Date.now() - 3 * day).toISOString().slice(0, 10);
    await page.getByLabel('From (UTC)').fill(from);
    await page.getByLabel('To (UTC)').fill(from);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText(/in the chosen dates/).waitFor();
    expect(new URL(page.url()).searchParams.get('days')).toBe('7');
    expect(await page.locator('table.records time').allTextContents()).not.toHaveLength(0);
    for (const time of await page.locator('table.records time').allTextContents())
      expect(time.startsWith(from)).toBe(true);
    widths.filtered = await capture(page, 'customer-license-filtered');

    expect(widths).toEqual({ list: 390, detail: 390, filtered: 390 });
  }, 120_000);

  it('greets a customer without licenses with an empty state that fits a phone', async () => {
    const { session } = await t.customer({ name: 'Newcomer Ltd' });
    const page = await pageOf(session);
    await page.goto(`${t.baseUrl}/`);
    await page.getByText('You have no licenses yet.').waitFor();
    expect(await capture(page, 'customer-empty')).toBe(390);
  });

  it("releases a hardware id after a confirmation, for real, and shows the limit's message once it is reached", async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id, hwidLimit: 2 });
    const bind = (hwid: string) => t.http.post('/api/license/validate').send({ key: license.key, hwid }).expect(200);
    const admin = await t.admin();
    const usedHwids = async () =>
      (await t.http.get(`/api/licenses/${license._id}`).set(admin.headers).expect(200)).body.license.usedHwids;
    await bind('old-laptop');
    await bind('desktop');
    const page = await pageOf(session);
    await page.goto(`${t.baseUrl}/my-licenses/${license._id}`);
    const release = page.getByRole('button', { name: 'Release old-laptop' });

    // The same in-page dialog as the console's (never the browser's confirm()); Cancel sends nothing.
    page.on('dialog', (dialog) => {
      throw new Error(`The browser's own dialog opened: ${dialog.message()}`);
    });
    await release.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Release the hardware id old-laptop?').waitFor();
    await capture(page, 'customer-release-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await usedHwids()).toEqual(['old-laptop', 'desktop']);

    // Confirming releases it through the real endpoint; the page reloads without it and says so once.
    await release.click();
    await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name: 'Release' }).click()]);
    await page.getByRole('button', { name: 'Release desktop' }).waitFor();
    expect(await page.getByRole('button', { name: 'Release old-laptop' }).count()).toBe(0);
    expect(await usedHwids()).toEqual(['desktop']);
    const done = page.getByRole('status').filter({ hasText: 'Released: hardware id old-laptop.' });
    await done.waitFor();
    expect(await capture(page, 'customer-released')).toBe(390);
    await page.reload();
    expect(await done.count()).toBe(0);

    // Two more releases use up the day's three; the fourth, by button, shows the service's message.
    for (let release = 1; release <= 2; release += 1) {
      await bind('old-laptop');
      await t.http
        .post(`/api/customer/licenses/${license._id}/release`)
        .set(session.headers)
        .send({ hwid: 'old-laptop' })
        .expect(200);
    }
    await page.getByRole('button', { name: 'Release desktop' }).click();
    await dialog.getByRole('button', { name: 'Release' }).click();
    await page.locator('#devices [data-error]').getByText('Release limit reached').waitFor();
    expect(await usedHwids()).toEqual(['desktop']);
  }, 60_000);
});
