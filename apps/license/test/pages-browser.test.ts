import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs, screenshotFolder } from './browser.js';
import { buildTestApp, systemActor, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('license page screenshots');

describe.skipIf(!executablePath)(`the license pages at 1280 and 390 px (${testDatabaseBackend()})`, () => {
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

  const pageOf = (session?: Session): Promise<Page> => pageAs(browser, t.baseUrl, session);

  it('the sign-in page, the admin dashboard, the customer page and the 404 page fit a phone', async () => {
    const studio = await t.createProduct({ name: 'Acme Studio Professional', licensePrefix: 'STUDIO' });
    const render = await t.createProduct({ name: 'Render Farm Credits', licensePrefix: 'RENDER' });
    const carol = await t.createCustomer({
      name: 'Carol Example Industries',
      email: 'carol@example.com',
      userId: 'carol',
    });
    await t.createCustomer({ name: 'Dave', email: 'dave@example.com' });
    const seat = await t.createLicense({
      product: studio._id,
      customer: carol._id,
      ipLimit: 5,
      hwidLimit: 2,
      expiresAt: new Date(Date.now() + 200 * 86_400_000),
    });
    const credits = await t.createLicense({
      product: render._id,
      customer: carol._id,
      licenseType: 'consumption',
      credits: 1000,
    });
    await t.createLicense({ product: studio._id, customer: carol._id, licenseType: 'enterprise' });
    const suspended = await t.createLicense({ product: studio._id });
    await t.context.services.licenses.suspend(systemActor, suspended._id, 'payment failed');
    await t.createLicense({ product: render._id, expiresAt: new Date(Date.now() - 86_400_000) });
    await t.http.post('/api/license/validate').send({ key: seat.key, hwid: 'workstation-1' }).expect(200);
    await t.http.post('/api/license/validate').send({ key: credits.key, hwid: 'render-node-7' }).expect(200);

    const widths: Record<string, number> = {};
    const visitor = await pageOf();
    await visitor.goto(`${t.baseUrl}/`);
    await visitor.getByRole('link', { name: 'Sign in' }).waitFor();
    widths.signIn = await capture(visitor, 'sign-in');

    await visitor.goto(`${t.baseUrl}/no/such/page`);
    await visitor.getByRole('heading', { name: 'Page not found' }).waitFor();
    widths.notFound = await capture(visitor, '404');

    const admin = await pageOf(await t.admin());
    await admin.goto(`${t.baseUrl}/`);
    await admin.getByRole('heading', { name: 'Admin dashboard' }).waitFor();
    expect(await admin.locator('[data-stat="licenses-total"] .stat-value').textContent()).toBe('5');
    widths.admin = await capture(admin, 'admin');

    const customer = await pageOf(await t.signIn('carol'));
    await customer.goto(`${t.baseUrl}/`);
    await customer.getByRole('heading', { name: 'Your licenses' }).waitFor();
    expect(await customer.locator('code.key').allTextContents()).toContain(seat.key);
    widths.customer = await capture(customer, 'customer');

    expect(widths).toEqual({ signIn: 390, notFound: 390, admin: 390, customer: 390 });
  });

  it("takes the kit's dark theme from the header button, with the license colours", async () => {
    const page = await pageOf(await t.admin());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${t.baseUrl}/`);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await page.getByRole('button', { name: 'Switch to the dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).not.toBe(light);
    await page.screenshot({ path: path.join(screenshotFolder, 'license-admin-dark-1280.png'), fullPage: true });
  });
});
