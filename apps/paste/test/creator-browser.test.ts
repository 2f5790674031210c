import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { capture, screenshotFolder } from './browser.js';
import { startTestSite, type TestSite } from './helpers.js';

// Debian's chromium; without it the scenarios are skipped with one line saying so (and fail under CI=true).
const executablePath = chromiumForTests("paste creator's pages in a browser");

describe.skipIf(!executablePath)(`the creator's pages in a browser (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let browser: Browser;
  beforeAll(async () => {
    site = await startTestSite();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('a one-view paste made in the form lands on the created page, the link copies, the recipient sees it, and the delete link deletes it after asking', async () => {
    await site.reset();
    const creator = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const recipient = await browser.newContext();
    try {
      const page = await creator.newPage();
      await page.goto(`${site.baseUrl}/`);
      await page.getByLabel('Content').fill('meet at the north gate at 9');
      await page.getByLabel('Expire after views').fill('1');
      // A plain paste, which the server renders (encrypted ones: encrypted-browser.test.ts).
      await page.getByLabel('Encrypt in my browser').uncheck();
      await page.getByRole('button', { name: 'Create paste' }).click();

      await page.waitForURL(/\/paste\/[A-Za-z0-9]{8}\/created$/);
      const slug = page.url().split('/').at(-2)!;
      const link = `${site.baseUrl}/paste/${slug}`;
      await page.getByRole('heading', { name: 'Your paste is ready' }).waitFor();
      expect(await page.getByLabel('Link to share').inputValue()).toBe(link);
      expect(await page.getByRole('img', { name: `QR code of ${link}` }).isVisible()).toBe(true);
      expect(await page.locator('.limits').innerText()).toMatch(/Views allowed\s+1 view/);
      expect(await page.locator('.limits').innerText()).toMatch(/Password protected\s+No/);
      expect(await page.locator('main').innerText()).not.toContain('north gate');
      await capture(page, 'paste-created');

      await page.getByRole('button', { name: 'Copy link' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

      // The recipient, in a browser of their own, gets the one view the creator's page left.
      const visitor = await recipient.newPage();
      const shown = await visitor.goto(link);
      expect(shown?.status()).toBe(200);
      // A view limit turns "Reveal on click" on in the form: the link opens on the button.
      await visitor.getByRole('button', { name: 'Show paste' }).click();
      expect(await visitor.locator('#paste-code').textContent()).toBe('meet at the north gate at 9');

      await page.getByRole('link', { name: 'Delete this paste' }).click();
      await page.getByRole('heading', { name: 'Delete this paste?' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/paste/${slug}/delete`);
      expect(await page.getByRole('link', { name: 'Cancel' }).getAttribute('href')).toBe('/');
      await capture(page, 'paste-delete-confirm');

      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('heading', { name: 'Paste deleted' }).waitFor();
      await capture(page, 'paste-deleted');

      const gone = await visitor.goto(link);
      expect(gone?.status()).toBe(404);
    } finally {
      await creator.close();
      await recipient.close();
    }
  });

  it('the created page in the dark theme (screenshot at 390 px)', async () => {
    await site.reset();
    const context = await browser.newContext({ colorScheme: 'dark', viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${site.baseUrl}/`);
      await page.getByLabel('Content').fill('dark mode');
      await page.getByLabel('Password').fill('swordfish');
      // A plain paste, which the server renders (encrypted ones: encrypted-browser.test.ts).
      await page.getByLabel('Encrypt in my browser').uncheck();
      await page.getByRole('button', { name: 'Create paste' }).click();
      await page.waitForURL(/\/created$/);
      expect(await page.locator('.limits').innerText()).toMatch(/Password protected\s+Yes/);
      mkdirSync(screenshotFolder, { recursive: true });
      await page.screenshot({ path: path.join(screenshotFolder, 'paste-created-dark-390.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
