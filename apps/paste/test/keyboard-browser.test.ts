import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { focused, tabTo } from '@app/ui/testing';
import { capture } from './browser.js';
import { startTestSite, type TestSite } from './helpers.js';

const executablePath = chromiumForTests('paste pages with the keyboard alone');

/**
 * The paste flows with the keyboard alone (no mouse, no clicks): Tab, Shift+Tab, Enter, Space and
 * typing. Every element Tab stops on must show its focus ring (tabTo checks); each step leaves a
 * screenshot with the ring in it (`keyboard-*`), and the page is audited by capture.
 */
describe.skipIf(!executablePath)(`paste pages with the keyboard alone (${testDatabaseBackend()})`, () => {
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

  it('skips to the content, creates a paste after a refused empty one, copies its link, and the recipient reveals it', async () => {
    await site.reset();
    const creator = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const recipient = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await creator.newPage();
      await page.goto(`${site.baseUrl}/`);

      // The first Tab reaches "Skip to content", shown only now; Enter moves the focus to the page's main part.
      const skip = await tabTo(page, 'Skip to content', { limit: 1 });
      expect(skip.tag).toBe('a');
      expect(await page.getByRole('link', { name: 'Skip to content' }).isVisible()).toBe(true);
      await capture(page, 'keyboard-paste-skip-link');
      await page.keyboard.press('Enter');
      expect((await focused(page)).id).toBe('main');

      // An empty paste is refused: the alert says why, Content is marked invalid, points at it and has the focus.
      await tabTo(page, /^Title/, { limit: 1 });
      await page.keyboard.type('Meeting point');
      await tabTo(page, 'Create paste');
      await page.keyboard.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'Content cannot be empty' }).waitFor();
      const content = page.getByLabel('Content');
      expect(await content.getAttribute('aria-invalid')).toBe('true');
      expect(await content.getAttribute('aria-describedby')).toBe('form-error');
      expect((await focused(page)).id).toBe('content');
      await capture(page, 'keyboard-paste-error');

      // Typed, with a view limit (which turns "Reveal on click" on), and sent with Enter on the button.
      await page.keyboard.type('meet at the north gate at 9');
      expect(await content.getAttribute('aria-invalid')).toBe('true');
      await tabTo(page, /^Expire after views/);
      await page.keyboard.type('1');
      expect(await page.getByLabel('Reveal on click').isChecked()).toBe(true);
      // A plain paste (Space unticks encryption): the encrypted flow has its own browser tests.
      await tabTo(page, 'Encrypt in my browser');
      await page.keyboard.press('Space');
      expect(await page.getByLabel('Encrypt in my browser').isChecked()).toBe(false);
      await tabTo(page, 'Create paste');
      await capture(page, 'keyboard-paste-create');
      await Promise.all([page.waitForURL(/\/paste\/[A-Za-z0-9]{8}\/created$/), page.keyboard.press('Enter')]);
      const link = await page.getByLabel('Link to share').inputValue();

      // Copy link with Enter; the button says Copied and the clipboard holds the link.
      await tabTo(page, 'Copy link');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
      await capture(page, 'keyboard-paste-copied');

      // The recipient reaches Show paste with Tab and opens it with Space.
      const visitor = await recipient.newPage();
      await visitor.goto(link);
      await tabTo(visitor, 'Show paste');
      await capture(visitor, 'keyboard-paste-reveal');
      await Promise.all([visitor.waitForEvent('load'), visitor.keyboard.press('Space')]);
      expect(await visitor.locator('#paste-code').textContent()).toBe('meet at the north gate at 9');
      await capture(visitor, 'keyboard-paste-revealed');
    } finally {
      await creator.close();
      await recipient.close();
    }
  }, 120_000);

  it('draws the focus ring in the dark theme too, in its own light colour', async () => {
    await site.reset();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    try {
      const page = await context.newPage();
      await page.goto(`${site.baseUrl}/`);
      const button = await tabTo(page, 'Create paste');
      expect(button.outline).toBe('solid 3px rgb(147, 197, 253)');
      await capture(page, 'keyboard-paste-dark-focus');
    } finally {
      await context.close();
    }
  });

  it('marks the password field invalid and points it at the error when a reveal is refused', async () => {
    await site.reset();
    const created = await site.http
      .post('/api/paste')
      .send({ content: 'the code is 1234', password: 'open sesame', revealOnClick: true })
      .expect(200);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${site.baseUrl}/paste/${created.body.slug}`);
      // The password field has the focus already (autofocus); its ring shows.
      expect(await focused(page)).toMatchObject({ name: 'Password', ringed: true });
      await page.keyboard.type('wrong');
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await focused(page)).toMatchObject({ name: 'Password', ringed: true });
      const password = page.getByLabel('Password');
      expect(await password.getAttribute('aria-invalid')).toBe('true');
      expect(await password.getAttribute('aria-describedby')).toBe(await alert.getAttribute('id'));
      await capture(page, 'keyboard-paste-wrong-password');
    } finally {
      await context.close();
    }
  });
});
