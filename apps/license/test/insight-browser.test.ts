import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs, screenshotFolder } from './browser.js';
import { buildTestApp, type TestApp } from './helpers.js';

// The insight charts (decisions.md, Wave 4): the dashboard's validations by day and outcome,
// active machines and top licenses, the license page's and the customer's usage chart. SVG from
// the server (no script needed), each with its table of numbers; axe-clean in both themes
// (capture audits light and dark), screenshots at 1280 and 390 px in both themes.

const executablePath = chromiumForTests('insight charts');

describe.skipIf(!executablePath)(`insight charts in a browser (${testDatabaseBackend()})`, () => {
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

  const validate = (key: string, ip: string, hwid: string) =>
    fetch(`${t.baseUrl}/api/license/validate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ key, ip, hwid }),
    });
  const dark = async (page: Page, name: string) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.screenshot({ path: path.join(screenshotFolder, `license-${name}-dark-${width}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  it('shows the charts with their tables on the dashboard, the license page and the portal', async () => {
    const { customer, session } = await t.customer({ name: 'Ines Insight' });
    const product = await t.createProduct({ name: 'Acme Insight' });
    const busy = await t.createLicense({ product: product._id, customer: customer._id, ipLimit: 4 });
    const quiet = await t.createLicense({ product: product._id });
    for (let i = 0; i < 9; i++) await validate(busy.key, `10.7.0.${i % 6}`, `hw-${i % 3}`);
    await validate(quiet.key, '10.8.0.1', 'hw-q');

    const page = await pageAs(browser, t.baseUrl, await t.admin());
    await page.goto(`${t.baseUrl}/`);
    const validations = page.getByRole('img', { name: /Validations per day, last 30 days/ });
    await validations.waitFor();
    expect(await page.getByRole('img', { name: /Active machines per day/ }).count()).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    const row = page.locator('#validations-chart-table tr', { has: page.locator(`th:text-is("${today}")`) });
    expect(await row.locator('td').allTextContents()).toEqual(['8', '2']);
    const machines = page.locator('#machines-chart-table tr', { has: page.locator(`th:text-is("${today}")`) });
    expect(await machines.locator('td').allTextContents()).toEqual(['4']);
    expect(await page.locator('.top-licenses tbody tr').first().textContent()).toContain(busy.key);
    const widths = [await capture(page, 'insight-dashboard')];
    await dark(page, 'insight-dashboard');

    await page.goto(`${t.baseUrl}/licenses/${busy._id}`);
    expect(await page.locator('[data-total="success"]').textContent()).toBe('7');
    widths.push(await capture(page, 'insight-license'));

    const portal = await pageAs(browser, t.baseUrl, session);
    await portal.goto(`${t.baseUrl}/my-licenses/${busy._id}`);
    expect(await portal.locator('[data-total="success"]').textContent()).toBe('7');
    widths.push(await capture(portal, 'insight-portal'));
    await dark(portal, 'insight-portal');

    expect(widths).toEqual([390, 390, 390]);
  });
});
