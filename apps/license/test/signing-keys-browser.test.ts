import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('signing keys page');

describe.skipIf(!executablePath)(`the signing keys page in a browser (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    t = await buildTestApp();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    page = await pageAs(browser, t.baseUrl, await t.admin());
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists the keys and rotates the signing key after asking', async () => {
    const before = (await t.http.get('/api/license/public-key')).body.keyId as string;
    await page.goto(`${t.baseUrl}/settings`);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Signing keys' }).click();
    await page.getByRole('heading', { name: 'Signing keys' }).waitFor();
    await page.getByRole('cell', { name: before }).waitFor();
    expect(await capture(page, 'settings-signing-keys')).toBeLessThanOrEqual(390);

    // Dismissing the question changes nothing.
    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('Rotate the signing key?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await t.http.get('/api/license/public-key')).body.keyId).toBe(before);

    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate signing key' }).click();
    await page
      .getByRole('status')
      .getByText(/New signing key [0-9a-f]{16} is current/)
      .waitFor();
    const after = (await t.http.get('/api/license/public-key')).body.keyId as string;
    expect(after).not.toBe(before);
    const rows = page.locator('table.signing-keys tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-kid')).toBe(after);
    expect(await rows.nth(0).textContent()).toContain('current');
    expect(await rows.nth(1).textContent()).toContain('retired');
    expect(await capture(page, 'settings-signing-keys-rotated')).toBeLessThanOrEqual(390);
  }, 90_000);
});
