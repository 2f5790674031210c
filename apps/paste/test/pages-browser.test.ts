import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

const executablePath = chromiumForTests('paste page screenshots');

// Kept for people to look at (git-ignored): the repository's artifacts/screenshots/.
const screenshots = path.resolve(import.meta.dirname, '../../../artifacts/screenshots');

const CODE = `import { readFile } from 'node:fs/promises';

/** Reads a JSON file, or answers the fallback when it does not exist. */
export async function readJson(file, fallback) {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') return fallback;
    throw error;
  }
}
`;

/** Screenshots at 1280 and 390 px; answers how wide the page is at 390 px. */
async function capture(page: Page, name: string): Promise<number> {
  mkdirSync(screenshots, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(screenshots, `paste-${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(screenshots, `paste-${name}-390.png`), fullPage: true });
  return page.evaluate(() => document.documentElement.scrollWidth);
}

describe.skipIf(!executablePath)(`every paste page at 1280 and 390 px (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    site = await startTestSite();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    context = await browser.newContext();
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('the home page, a paste, the password form, the created page, the delete confirmation and the 404 fit a phone', async () => {
    await site.reset({
      webRateLimit: 1_000_000,
      apiRateLimit: 1_000_000,
      siteDescription: 'Share text and code with a link, from anywhere, for as long as it is needed.',
    });
    const widths: Record<string, number> = {};

    await page.goto(`${site.baseUrl}/`);
    widths.home = await capture(page, 'home');

    const shown = await site.createPaste({ content: CODE });
    await page.goto(`${site.baseUrl}/paste/${shown}`);
    await expect.poll(() => page.locator('.hljs-keyword').count()).toBeGreaterThan(0);
    widths.paste = await capture(page, 'paste');

    const locked = await site.createPaste({ content: 'secret', password: 'open sesame' });
    await page.goto(`${site.baseUrl}/paste/${locked}`);
    await page.getByLabel('Password').waitFor();
    widths.password = await capture(page, 'password');

    await page.goto(`${site.baseUrl}/`);
    await page.getByLabel('Content').fill(CODE);
    await page.getByLabel('Expire after views').fill('5');
    // A plain paste, which the server renders (encrypted ones: encrypted-browser.test.ts).
    await page.getByLabel('Encrypt in my browser').uncheck();
    await page.getByRole('button', { name: 'Create paste' }).click();
    await page.waitForURL(/\/created$/);
    widths.created = await capture(page, 'created');

    await page.getByRole('link', { name: 'Delete this paste…' }).click();
    await page.getByRole('button', { name: 'Delete' }).waitFor();
    widths.delete = await capture(page, 'delete');

    await page.goto(`${site.baseUrl}/paste/NoSuchPaste`);
    widths.notFound = await capture(page, '404');

    expect(widths).toEqual({ home: 390, paste: 390, password: 390, created: 390, delete: 390, notFound: 390 });
  });

  it("the owner's dashboard, with statistics and API keys, fits a phone", async () => {
    const owner = await site.session(OWNER_ID);
    await site.http
      .post('/api/settings/api-keys')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ name: 'deploy script on the build server' })
      .expect(200);
    const ownerContext = await browser.newContext();
    await ownerContext.addCookies(
      owner.cookie.split('; ').map((pair) => {
        const [name, ...value] = pair.split('=');
        return { name: name!, value: value.join('='), url: site.baseUrl };
      }),
    );
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto(`${site.baseUrl}/admin`);
    await ownerPage.getByRole('heading', { name: 'Site settings' }).waitFor();
    expect(await ownerPage.getByLabel('Site name').inputValue()).toBe('Paste');
    expect(await capture(ownerPage, 'admin')).toBe(390);
    await ownerContext.close();
  });

  it('switches to the dark theme with the header button and remembers it on the next page', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${site.baseUrl}/`);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await page.getByRole('button', { name: 'Switch to the dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const dark = await background();
    expect(dark).not.toBe(light);
    await page.goto(`${site.baseUrl}/paste/NoSuchPaste`);
    expect(await background()).toBe(dark);
    await page.screenshot({ path: path.join(screenshots, 'paste-404-dark-1280.png'), fullPage: true });
    await page.getByRole('button', { name: 'Switch to the light theme' }).click();
    expect(await background()).toBe(light);
  });
});
