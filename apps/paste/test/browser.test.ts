import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { RELAXED_LIMITS, startTestSite, type TestSite } from './helpers.js';

// Debian's chromium; without one the scenarios are skipped with a line saying so (a failure under CI=true).
const executablePath = chromiumForTests('paste browser tests');

// A step that waits longer fails with the step's own message (which locator or URL it waited
// for) before the test's 30 s run out: one CI run timed out here once without saying where.
const stepTimeout = 12_000;

describe.skipIf(!executablePath)(`the home page in a browser (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    site = await startTestSite();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  beforeEach(async () => {
    await site.reset();
    page = await browser.newPage();
    page.setDefaultTimeout(stepTimeout);
    await page.goto(`${site.baseUrl}/`);
  });
  afterEach(async () => {
    await page?.close();
  });

  const errorText = async () => {
    await page.locator('#form-error:not([hidden])').waitFor();
    return page.locator('#form-error').textContent();
  };

  it('creates a paste with the CSRF token (a web request) and lands on the created page, not on the paste', async () => {
    await page.fill('#content', 'hello from the browser <b>bold?</b>');
    await page.fill('#maxViews', '3');
    await page.getByLabel('Encrypt in my browser').uncheck(); // a plain paste: encrypted-browser.test.ts has the other
    await page.click('#submit');
    await page.waitForURL(/\/paste\/[A-Za-z0-9]{8}\/created$/);
    const slug = page.url().split('/').at(-2)!;
    expect(await page.locator('#paste-link').inputValue()).toBe(`${site.baseUrl}/paste/${slug}`);
    expect(await page.locator('.limits').textContent()).toContain('3 views');
    // Landing there counted no view; the paste itself shows the count from 1.
    await page.goto(`${site.baseUrl}/paste/${slug}`);
    // A view limit turns "Reveal on click" on in the form: the link opens on the button.
    await page.getByRole('button', { name: 'Show paste' }).click();
    expect(await page.locator('#paste-code').textContent()).toBe('hello from the browser <b>bold?</b>');
    expect(await page.locator('.paste-meta').textContent()).toContain('1 of 3 views');
    // A web request: API usage did not count it.
    const { rows } = await site.database.pool.query('SELECT coalesce(sum(value), 0) AS n FROM paste_counters');
    expect(rows[0].n).toBe(0);
  });

  it('shows "Content cannot be empty" in the page', async () => {
    await page.click('#submit');
    expect(await errorText()).toContain('Content cannot be empty');
  });

  it("shows the server's answer for content that is too long", async () => {
    await site.settings.update({ maxPasteSize: 0.01 });
    await page.fill('#content', 'x'.repeat(20_000));
    await page.click('#submit');
    expect(await errorText()).toContain('Content exceeds maximum size of 0.01 MB');
  });

  it('says so in the page when the rate limit is reached', async () => {
    // Counts made earlier in this window still count; a limit of 1 is used up by the second post at the latest.
    await site.settings.update({ ...RELAXED_LIMITS, webRateLimit: 1 });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await page.goto(`${site.baseUrl}/`);
      await page.fill('#content', 'one too many');
      await page.click('#submit');
      const outcome = await Promise.race([
        // The loser keeps waiting until the page closes: its rejection is expected.
        page.waitForURL(/\/paste\//).then(
          () => 'created',
          () => 'closed',
        ),
        page
          .locator('#form-error:not([hidden])')
          .waitFor()
          .then(
            () => 'refused',
            () => 'closed',
          ),
      ]);
      if (outcome === 'refused') break;
    }
    expect(await errorText()).toMatch(/too many requests/i);
    expect(page.url()).toBe(`${site.baseUrl}/`);
  });

  it('unlocks a protected paste through the password form (in a browser that did not create it)', async () => {
    await page.fill('#content', 'behind a password');
    await page.fill('#password', 'open');
    await page.getByLabel('Encrypt in my browser').uncheck();
    await page.click('#submit');
    await page.waitForURL(/\/created$/);
    const link = await page.locator('#paste-link').inputValue();
    // The creator's own session is not asked for the password: the recipient's browser is.
    const recipient = await browser.newContext();
    recipient.setDefaultTimeout(stepTimeout);
    try {
      const visitor = await recipient.newPage();
      await visitor.goto(link);
      expect(await visitor.locator('main').textContent()).not.toContain('behind a password');
      await visitor.fill('input[name=password]', 'wrong');
      await visitor.click('button[type=submit]');
      expect(await visitor.locator('[role=alert]').textContent()).toContain('Incorrect password');
      await visitor.fill('input[name=password]', 'open');
      await visitor.click('button[type=submit]');
      await visitor.locator('#paste-code').waitFor();
      expect(await visitor.locator('#paste-code').textContent()).toBe('behind a password');
    } finally {
      await recipient.close();
    }
  });
});
