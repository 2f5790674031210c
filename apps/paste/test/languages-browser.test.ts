import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { chromiumForTests } from '@app/http/testing';
import { SUPPORTED } from '@app/ui';
import { capture, screenshots as screenshot } from './browser.js';
import { startTestSite, type TestSite } from './helpers.js';

const executablePath = chromiumForTests('paste page languages');

// `npm run screenshots:languages` sets this: every main page in every language (too slow for CI).
const everyPage = process.env.LANGUAGE_SCREENSHOTS === 'all';

const htmlLanguage = (page: Page) =>
  page.evaluate(() => [
    document.documentElement.lang,
    document.documentElement.dir,
    getComputedStyle(document.body).direction,
  ]);

describe.skipIf(!executablePath)(`page languages in Chromium (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let browser: Browser;
  const logged: string[] = [];
  let slug: string;
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        logged.push(String(chunk));
        callback();
      },
    });
    site = await startTestSite(undefined, { logger: createLogger({ level: 'info', destination, name: 'paste' }) });
    slug = await site.createPaste({
      title: 'Release notes',
      content: '# Friday\n\n- faster pages\n- six languages\n',
      language: 'markdown',
    });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('switches with the footer links by their names, keeps the choice on the next page, and Arabic is right to left', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${site.baseUrl}/paste/${slug}`);
    expect(await htmlLanguage(page)).toEqual(['en', 'ltr', 'ltr']);
    await page.getByRole('contentinfo').getByRole('link', { name: 'Deutsch' }).click();
    await page.waitForURL(`${site.baseUrl}/paste/${slug}`);
    expect(await htmlLanguage(page)).toEqual(['de', 'ltr', 'ltr']);
    expect(await page.getByRole('button', { name: 'Kopieren' }).isVisible()).toBe(true);
    // The next page remembers it (the cookie), although the browser asks for English.
    await page.getByRole('link', { name: 'Neuer Paste' }).click();
    await page.waitForURL(`${site.baseUrl}/`);
    expect(await page.getByRole('heading', { level: 1, name: 'Neuer Paste' }).isVisible()).toBe(true);
    expect(await page.getByLabel('In meinem Browser verschlüsseln').isChecked()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Sprache' }).count()).toBe(1);
    await page.getByRole('contentinfo').getByRole('link', { name: 'العربية' }).click();
    await page.waitForURL(`${site.baseUrl}/`);
    expect(await htmlLanguage(page)).toEqual(['ar', 'rtl', 'rtl']);
    expect(await page.getByRole('button', { name: 'إنشاء اللصقة' }).isVisible()).toBe(true);
    // Right to left: the submit button sits on the left end of its row.
    const button = await page.getByRole('button', { name: 'إنشاء اللصقة' }).boundingBox();
    const form = await page.locator('#paste-form').boundingBox();
    expect(button!.x - form!.x).toBeLessThan(form!.width / 2);
    await context.close();
  });

  it('switching language on an encrypted paste keeps it readable, and its key never reaches the server', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${site.baseUrl}/`);
    await page.getByLabel('Content').fill('the secret plan');
    await page.getByRole('button', { name: 'Create paste' }).click();
    await page.waitForURL(/\/created#/);
    const link = await page.getByLabel('Link to share').inputValue();
    const key = new URL(link).hash.slice(1);
    expect(key.length).toBeGreaterThan(20);
    await page.goto(link);
    await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
    await page.getByRole('link', { name: 'Français' }).click();
    await page.waitForURL(link);
    await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
    expect(await htmlLanguage(page)).toEqual(['fr', 'ltr', 'ltr']);
    expect(await page.locator('#paste-body').innerText()).toContain('the secret plan');
    expect(await page.locator('#paste-views').innerText()).toBe('2 vues');
    // Every request the server logged (the lines have the URLs), the page's twice: none carried the key.
    const pasteUrl = new URL(link).pathname;
    expect(logged.join('').split(`"${pasteUrl}"`).length - 1).toBeGreaterThanOrEqual(2);
    expect(logged.join('')).not.toContain(key);
    await context.close();
  });

  it('German pages are accessible in both themes (axe-core) and fit a phone', async () => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${site.baseUrl}/`);
    expect(await htmlLanguage(page)).toEqual(['de', 'ltr', 'ltr']);
    expect(await capture(page, 'paste-de-home')).toBeLessThanOrEqual(390);
    await page.goto(`${site.baseUrl}/paste/${slug}`);
    expect(await capture(page, 'paste-de-view')).toBeLessThanOrEqual(390);
    await context.close();
  });

  it.each(SUPPORTED)('%s: the create page and a paste at 1280 and 390 px', async (language) => {
    const context = await browser.newContext({ locale: language });
    const page = await context.newPage();
    await page.goto(`${site.baseUrl}/`);
    expect((await htmlLanguage(page))[0]).toBe(language);
    expect(await screenshot(page, `paste-${language}-home`)).toBeLessThanOrEqual(390);
    await page.goto(`${site.baseUrl}/paste/${slug}`);
    expect(await screenshot(page, `paste-${language}-view`)).toBeLessThanOrEqual(390);
    if (everyPage) {
      const locked = await site.createPaste({ content: 'x', password: 'hunter22' });
      await page.goto(`${site.baseUrl}/paste/${locked}`);
      expect(await screenshot(page, `paste-${language}-password`)).toBeLessThanOrEqual(390);
      await page.goto(`${site.baseUrl}/no/such/page`);
      expect(await screenshot(page, `paste-${language}-404`)).toBeLessThanOrEqual(390);
      await page.goto(`${site.baseUrl}/`);
      await page.locator('#content').fill('console.log("hello")');
      await page.locator('#maxViews').fill('3');
      // A view limit turns "reveal on click" on; off, the link opens the paste itself.
      await page.locator('#revealOnClick').uncheck();
      await page.locator('#submit').click();
      await page.waitForURL(/\/created#/);
      expect(await screenshot(page, `paste-${language}-created`)).toBeLessThanOrEqual(390);
      await page.goto(page.url().replace('/created#', '#'));
      await page.locator('#encrypted-paste[data-state="shown"]').waitFor();
      expect(await screenshot(page, `paste-${language}-encrypted`)).toBeLessThanOrEqual(390);
    }
    await context.close();
  });
});
