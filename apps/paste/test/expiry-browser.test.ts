import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { capture, screenshotFolder } from './browser.js';
import { startTestSite, type TestSite } from './helpers.js';

// Debian's chromium; without it the scenarios are skipped with one line saying so (and fail under CI=true).
const executablePath = chromiumForTests('paste time limits and reveal on click in a browser');

describe.skipIf(!executablePath)(`time limits and reveal on click in a browser (${testDatabaseBackend()})`, () => {
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

  it('a one-view, one-hour paste made in the form opens on "Show paste" for the recipient, then the delete link deletes it after asking', async () => {
    await site.reset();
    const creator = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const recipient = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await creator.newPage();
      await page.goto(`${site.baseUrl}/`);
      await page.getByLabel('Content').fill('the boat leaves at noon');
      const reveal = page.getByLabel('Reveal on click');
      expect(await reveal.isChecked()).toBe(false);
      await page.getByLabel('Expire after views').fill('1');
      // A view limit turns "Reveal on click" on, so chat previews cannot use the one view.
      expect(await reveal.isChecked()).toBe(true);
      await page.getByLabel('Expire after time').selectOption({ label: '1 hour' });
      expect(await capture(page, 'paste-form-expiry')).toBeLessThanOrEqual(390);
      // A plain paste, which the server renders (encrypted ones: encrypted-browser.test.ts).
      await page.getByLabel('Encrypt in my browser').uncheck();
      await page.getByRole('button', { name: 'Create paste' }).click();

      await page.waitForURL(/\/paste\/[A-Za-z0-9]{8}\/created$/);
      const slug = page.url().split('/').at(-2)!;
      const link = `${site.baseUrl}/paste/${slug}`;
      const limits = await page.locator('.limits').innerText();
      expect(limits).toMatch(/Views allowed\s+1 view/);
      expect(limits).toMatch(/Time limit\s+expires in 1 hour/);
      expect(limits).toMatch(/Show paste button\s+Yes/);
      expect(limits).toMatch(/Preview fetches\s+0/);
      expect(await capture(page, 'paste-expiry-created')).toBeLessThanOrEqual(390);

      await page.getByRole('button', { name: 'Copy link' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(link);

      // A chat unfurls the link first: no view used.
      const unfurl = await fetch(copied, {
        headers: { 'User-Agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' },
      });
      expect(unfurl.status).toBe(200);
      expect(await unfurl.text()).not.toContain('the boat leaves at noon');

      const visitor = await recipient.newPage();
      const opened = await visitor.goto(copied);
      expect(opened?.status()).toBe(200);
      await visitor.getByRole('heading', { name: 'A paste was shared with you' }).waitFor();
      expect(await visitor.locator('main').innerText()).not.toContain('the boat leaves at noon');
      expect(await capture(visitor, 'paste-reveal')).toBeLessThanOrEqual(390);
      await visitor.getByRole('button', { name: 'Show paste' }).click();
      await visitor.locator('#paste-code').waitFor();
      expect(await visitor.locator('#paste-code').textContent()).toBe('the boat leaves at noon');
      expect(await visitor.locator('.paste-meta').innerText()).toContain('expires in 1 hour');
      expect(await capture(visitor, 'paste-revealed')).toBeLessThanOrEqual(390);

      // The view is used: the link now answers 410.
      expect((await visitor.goto(copied))?.status()).toBe(410);

      await page.reload();
      expect(await page.locator('.limits').innerText()).toMatch(/Preview fetches\s+1/);
      await page.getByRole('link', { name: 'Delete this paste' }).click();
      await page.getByRole('heading', { name: 'Delete this paste?' }).waitFor();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('heading', { name: 'Paste deleted' }).waitFor();
      expect((await visitor.goto(copied))?.status()).toBe(404);
    } finally {
      await creator.close();
      await recipient.close();
    }
  });

  it('a password paste behind the button asks for the password on the same form (dark theme, 390 px)', async () => {
    await site.reset();
    const slug = await site.createPaste({
      content: 'dark secret',
      password: 'swordfish',
      revealOnClick: true,
      expiresIn: 600,
    });
    const context = await browser.newContext({ colorScheme: 'dark', viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${site.baseUrl}/paste/${slug}`);
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Show paste' }).click();
      await page.getByText('Incorrect password').waitFor();
      mkdirSync(screenshotFolder, { recursive: true });
      await page.screenshot({
        path: path.join(screenshotFolder, 'paste-reveal-password-dark-390.png'),
        fullPage: true,
      });
      await page.getByLabel('Password').fill('swordfish');
      await page.getByRole('button', { name: 'Show paste' }).click();
      await page.locator('#paste-code').waitFor();
      expect(await page.locator('#paste-code').textContent()).toBe('dark secret');
      expect(await page.locator('.paste-meta').innerText()).toContain('expires in 10 minutes');
    } finally {
      await context.close();
    }
  });
});
