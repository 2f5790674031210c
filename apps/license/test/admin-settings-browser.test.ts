import { authenticator } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin console settings pages');

describe.skipIf(!executablePath)(`the admin console's settings in a browser (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: Session;
  let page: Page;
  beforeAll(async () => {
    t = await buildTestApp({ env: { JWT_SECRET: 'a-test-secret-for-the-settings-browser-0123456789' } });
    admin = await t.admin();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    page = await pageAs(browser, t.baseUrl, admin);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('turns panic mode on after asking, and off again; shows the rate limits', async () => {
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: /Panic mode/ }).waitFor();
    expect(await page.getByLabel('Requests per window (public API)').inputValue()).toBe('100000');
    expect(await capture(page, 'admin-settings')).toBeLessThanOrEqual(390);

    await page.getByRole('button', { name: 'Turn panic mode on' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('will answer 503');
    await dialog.getByRole('button', { name: 'Turn panic mode on' }).click();
    await page
      .getByRole('status')
      .getByText(/Panic mode is on/)
      .waitFor();
    expect(t.settings.get().security.panicMode).toBe(true);
    expect(await capture(page, 'admin-settings-panic-on')).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Turn panic mode off' }).click();
    await page
      .getByRole('status')
      .getByText(/Panic mode is off/)
      .waitFor();

    await page.getByLabel('Requests per window (signed-in person)').fill('2000');
    await page.getByRole('button', { name: 'Save rate limits' }).click();
    await page
      .getByRole('status')
      .getByText(/Rate limits saved/)
      .waitFor();
    expect(t.settings.get().userRateLimit.max).toBe(2000);
  }, 90_000);

  it('adds an admin by provider user id', async () => {
    await page.goto(`${t.baseUrl}/settings`);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Admins' }).click();
    await page.getByText('The last admin cannot be removed').waitFor();
    expect(await capture(page, 'admin-settings-admins-one')).toBeLessThanOrEqual(390);
    await page.getByLabel('Provider user id').fill('oidc|5f2c9a81e4b0d3a7c6e1f042');
    await page.getByRole('button', { name: 'Add admin' }).click();
    await page
      .getByRole('status')
      .getByText('oidc|5f2c9a81e4b0d3a7c6e1f042 is now an admin.', { exact: false })
      .waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).waitFor();
    expect(await capture(page, 'admin-settings-admins')).toBeLessThanOrEqual(390);
  }, 90_000);

  it('issues an API token and shows it once, then revokes it after asking', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API tokens' }).click();
    await page.getByText('No tokens yet.').waitFor();
    await page.getByLabel('Name').fill('Nightly billing sync');
    await page.getByLabel('Lifetime').selectOption({ label: '90 days' });
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByText('it is shown only this once').waitFor();
    const token = await page.getByLabel('New API token').inputValue();
    expect(token.split('.')).toHaveLength(3);
    await page.getByRole('button', { name: 'Copy the token' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    expect((await t.http.get('/api/products').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    expect(await capture(page, 'admin-settings-token-issued')).toBeLessThanOrEqual(390);

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API tokens' }).click();
    expect(await page.getByLabel('New API token').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page
      .getByRole('status')
      .getByText(/revoked: programs that use it are refused/)
      .waitFor();
    expect((await t.http.get('/api/products').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    expect(await capture(page, 'admin-settings-tokens')).toBeLessThanOrEqual(390);
  }, 90_000);

  it('sets up two-factor: the QR code and secret, a code, then the backup codes', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Two-factor' }).click();
    await page.getByRole('button', { name: 'Set up two-factor' }).waitFor();
    expect(await capture(page, 'admin-settings-two-factor')).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await qr.waitFor();
    expect(await qr.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
    expect(await capture(page, 'admin-settings-two-factor-setup')).toBeLessThanOrEqual(390);

    // What a person reads off the page into their app.
    const secret = ((await page.locator('code.secret').textContent()) ?? '').replace(/\s/g, '');
    await page.getByLabel('Code from your authenticator app').fill(authenticator.generate(secret));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByRole('heading', { name: 'Two-factor is on' }).waitFor();
    expect(await page.getByRole('list', { name: 'Backup codes' }).getByRole('listitem').count()).toBe(10);
    expect(await capture(page, 'admin-settings-backup-codes')).toBeLessThanOrEqual(390);
    await page.getByRole('link', { name: 'I have saved them' }).click();
    await page.getByLabel('Current code, or a backup code').waitFor();
    expect(await capture(page, 'admin-settings-two-factor-on')).toBeLessThanOrEqual(390);
  }, 90_000);
});

describe.skipIf(!executablePath)(`the API tokens page where no JWT secret is set (${testDatabaseBackend()})`, () => {
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

  it('names the variable to set and promises no form that is not there', async () => {
    const page = await pageAs(browser, t.baseUrl, await t.admin());
    await page.goto(`${t.baseUrl}/settings/tokens`);
    await page.getByText('This deployment does not issue tokens').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('set JWT_SECRET');
    expect(await page.getByRole('button', { name: 'Issue token' }).count()).toBe(0);
    expect(await page.getByText('Issue one with the form').count()).toBe(0);
    await page.getByText('Tokens appear here once this deployment issues them').waitFor();
    expect(await capture(page, 'admin-settings-tokens-not-configured')).toBeLessThanOrEqual(390);
  }, 90_000);
});
