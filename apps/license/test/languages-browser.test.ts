import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs, screenshots } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// The console and the portal in a browser, in the visitor's language: switched with the
// footer's links (by their visible names), kept on the next page, Arabic right to left.
// Screenshots of the dashboard, a license page and the portal in every shipped language at
// 1280 and 390 px; axe-core in both themes for German (English is audited by the other tests).

const executablePath = chromiumForTests('license pages in other languages');
const languages = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const;
const day = 86_400_000;

describe.skipIf(!executablePath)(`the license pages in six languages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let customerSession: Session;
  let license: { _id: string };
  beforeAll(async () => {
    t = await buildTestApp();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    const carol = await t.customer({ name: 'Carol Example Industries' });
    customerSession = carol.session;
    const studio = await t.createProduct({ name: 'Acme Studio Professional', licensePrefix: 'STUDIO' });
    license = await t.createLicense({
      product: studio._id,
      customer: carol.customer._id,
      ipLimit: 5,
      hwidLimit: 2,
      expiresAt: new Date(Date.now() + 200.5 * day),
    });
    await t.createLicense({
      product: studio._id,
      customer: carol.customer._id,
      licenseType: 'consumption',
      credits: 1500,
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('switches to German by the footer link, stays German on the next page, and writes Arabic right to left', async () => {
    const page = await pageAs(browser, t.baseUrl, await t.admin());
    await page.goto(`${t.baseUrl}/`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Admin dashboard');

    await page.getByRole('link', { name: 'Deutsch' }).click();
    await page.waitForURL(`${t.baseUrl}/`);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Admin-Übersicht');
    expect(await page.getByRole('link', { name: 'Deutsch' }).getAttribute('aria-current')).toBe('true');
    // The next page, reached through the navigation, stays German.
    await page.getByRole('navigation', { name: 'Admin-Konsole' }).getByRole('link', { name: 'Lizenzen' }).click();
    await page.waitForURL(`${t.baseUrl}/licenses`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Lizenzen');
    await expect(page.getByRole('link', { name: 'Neue Lizenz' }).isVisible()).resolves.toBe(true);

    // German, audited by axe-core in the light and the dark theme.
    await page.goto(`${t.baseUrl}/`);
    expect(await capture(page, 'lang-de-dashboard')).toBeLessThanOrEqual(390);
    await page.goto(`${t.baseUrl}/licenses/${license._id}`);
    expect(await page.getByRole('button', { name: 'Schlüssel kopieren' }).isVisible()).toBe(true);
    expect(await capture(page, 'lang-de-license')).toBeLessThanOrEqual(390);

    await page.getByRole('link', { name: 'العربية' }).click();
    await page.waitForURL(`${t.baseUrl}/licenses/${license._id}`);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    // Right to left: the navigation's first section sits at the right edge.
    const first = await page.locator('nav.admin-nav li').first().boundingBox();
    const last = await page.locator('nav.admin-nav li').last().boundingBox();
    expect(first!.x).toBeGreaterThan(last!.x);
    await page.context().close();
  }, 120_000);

  // Every language: the dashboard, a license page and the portal, at both widths.
  it.each(languages)(
    'shows the dashboard, a license page and the portal in %s at 1280 and 390 px',
    async (language) => {
      const admin = await pageAs(browser, t.baseUrl, await t.admin());
      await admin.context().addCookies([{ name: 'lang', value: language, url: t.baseUrl }]);
      await admin.goto(`${t.baseUrl}/`);
      expect(await admin.locator('html').getAttribute('lang')).toBe(language);
      expect(await screenshots(admin, `lang-${language}-dashboard`), language).toBeLessThanOrEqual(390);
      await admin.goto(`${t.baseUrl}/licenses/${license._id}`);
      expect(await screenshots(admin, `lang-${language}-license`), language).toBeLessThanOrEqual(390);
      await admin.context().close();

      const portal = await pageAs(browser, t.baseUrl, customerSession);
      await portal.context().addCookies([{ name: 'lang', value: language, url: t.baseUrl }]);
      await portal.goto(`${t.baseUrl}/`);
      expect(await portal.locator('html').getAttribute('dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
      // German is audited by axe-core as well (capture), the others only photographed.
      const shoot = language === 'de' ? capture : screenshots;
      expect(await shoot(portal, `lang-${language}-portal`), language).toBeLessThanOrEqual(390);
      await portal.context().close();
    },
    90_000,
  );
});
