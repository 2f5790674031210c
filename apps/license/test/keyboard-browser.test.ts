import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { focused, tabTo } from '@app/ui/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, testAdminId, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('the console and the portal with the keyboard alone');

/**
 * The console's and the portal's flows with the keyboard alone (no mouse, no clicks): sign in,
 * create a license after a refused try, and release a device behind the confirmation dialog.
 * Every element Tab stops on must show its focus ring (tabTo checks); each step leaves a
 * screenshot with the ring in it (`license-keyboard-*`), and the page is audited by capture.
 */
describe.skipIf(!executablePath)(
  `the console and the portal with the keyboard alone (${testDatabaseBackend()})`,
  () => {
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

    it('signs in, and creates a license after the form names the field it refused', async () => {
      await t.createProduct({ name: 'Render Farm Credits', licensePrefix: 'RENDER' });
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
      await page.goto(`${t.baseUrl}/`);

      // Skip link first, then Sign in; the identity provider's page puts the focus in its field.
      await tabTo(page, 'Skip to content', { limit: 1 });
      await tabTo(page, 'Sign in');
      await capture(page, 'keyboard-sign-in');
      await Promise.all([page.waitForURL(/\/authorize/), page.keyboard.press('Enter')]);
      expect((await focused(page)).id).toBe('login_hint');
      await page.keyboard.type(testAdminId);
      await page.keyboard.press('Enter');
      const nav = page.getByRole('navigation', { name: 'Admin console' });
      await nav.waitFor();

      // Through the console's navigation to the new-license form.
      await tabTo(page, 'Licenses');
      await capture(page, 'keyboard-console-nav');
      await Promise.all([page.waitForURL(/\/licenses$/), page.keyboard.press('Enter')]);
      await tabTo(page, 'New license');
      await Promise.all([page.waitForURL(/\/licenses\/new$/), page.keyboard.press('Enter')]);

      // A consumption license without credits: the alert names the field, which says it is invalid.
      await tabTo(page, 'Type');
      while ((await page.getByLabel('Type').inputValue()) !== 'consumption') await page.keyboard.press('ArrowDown');
      await tabTo(page, /^IP limit/);
      await capture(page, 'keyboard-new-license');
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const credits = page.getByLabel(/^Credits/);
      expect(await credits.getAttribute('aria-invalid')).toBe('true');
      expect(await credits.getAttribute('aria-describedby')).toBe(await alert.getAttribute('id'));
      // The refused field has the focus, with its ring.
      expect(await focused(page)).toMatchObject({ name: 'Credits (consumption licenses)', ringed: true });
      await capture(page, 'keyboard-new-license-refused');

      // Corrected and sent with Enter in the field; the license's page says so in a status message.
      await page.keyboard.type('500');
      await Promise.all([page.waitForURL(/\/licenses\/[0-9a-f-]{36}$/), page.keyboard.press('Enter')]);
      await page
        .getByRole('status')
        .filter({ hasText: /License RENDER-.* created\./ })
        .waitFor();
      await capture(page, 'keyboard-license-created');
      await page.context().close();
    }, 120_000);

    it('releases a device in the portal: the dialog takes the focus, keeps it, closes on Escape and gives it back', async () => {
      const { customer, session } = await t.customer({ name: 'Carol Keyboard' });
      const license = await t.createLicense({ customer: customer._id, hwidLimit: 2 });
      for (const hwid of ['old-laptop', 'desktop'])
        await t.http.post('/api/license/validate').send({ key: license.key, hwid }).expect(200);
      const page = await pageAs(browser, t.baseUrl, session);
      await page.goto(`${t.baseUrl}/my-licenses/${license._id}`);
      page.on('dialog', (dialog) => {
        throw new Error(`The browser's own dialog opened: ${dialog.message()}`);
      });

      await tabTo(page, 'Release old-laptop', { limit: 60 });
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Release the hardware id old-laptop?').waitFor();
      // The dialog has the focus, on Cancel; Tab and Shift+Tab stay inside it.
      expect(await focused(page)).toMatchObject({ name: 'Cancel', ringed: true });
      await capture(page, 'keyboard-release-dialog');
      await tabTo(page, 'Release', { limit: 1 });
      await tabTo(page, 'Cancel', { limit: 1 });
      await tabTo(page, 'Release', { limit: 1, backwards: true });
      // Escape closes it, sends nothing, and the focus is back on the button that opened it.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await focused(page)).toMatchObject({ name: 'Release old-laptop', ringed: true });

      // Again, this time confirmed with Enter on Release: the page reloads and says so in a status message.
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await tabTo(page, 'Release', { limit: 1 });
      await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
      await page.getByRole('status').filter({ hasText: 'Released: hardware id old-laptop.' }).waitFor();
      expect(await page.getByRole('button', { name: 'Release old-laptop' }).count()).toBe(0);
      await tabTo(page, 'Release desktop', { limit: 60 });
      await capture(page, 'keyboard-released');
      await page.context().close();
    }, 60_000);
  },
);
