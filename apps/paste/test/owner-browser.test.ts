import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { capture, screenshotFolder } from './browser.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// Debian's chromium; without it the scenarios are skipped with one line saying so (and fail under CI=true).
const executablePath = chromiumForTests("the paste owner's first day in a browser");

describe.skipIf(!executablePath)(`the paste owner's first day in a browser (${testDatabaseBackend()})`, () => {
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

  it('signs in from the footer, lands on /admin, and every page says who is signed in with Admin and Sign out', async () => {
    await site.reset();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${site.baseUrl}/`);
      const header = page.getByRole('banner');
      expect(await header.getByRole('link', { name: 'Admin' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Owner' }).click();
      await page.getByLabel('User id').fill(OWNER_ID);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${site.baseUrl}/admin`);
      expect(await header.innerText()).toContain(`Signed in as ${OWNER_ID}`);

      // The new-paste form, signed in: one click back to the dashboard.
      await header.getByRole('link', { name: 'New paste' }).click();
      await page.getByLabel('Content').waitFor();
      expect(await header.innerText()).toContain(`Signed in as ${OWNER_ID}`);
      expect(await capture(page, 'paste-home-signed-in')).toBeLessThanOrEqual(390);
      await header.getByRole('link', { name: 'Admin' }).click();
      await page.waitForURL(`${site.baseUrl}/admin`);

      await header.getByRole('link', { name: 'Sign out' }).click();
      await page.waitForURL(`${site.baseUrl}/`);
      expect(await header.innerText()).not.toContain('Signed in as');
    } finally {
      await context.close();
    }
  });

  it('creates an API key: it is listed at once, its secret has a Copy button, and deleting asks in the page', async () => {
    await site.reset();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    try {
      await context.addCookies(cookiesOf((await site.session(OWNER_ID)).cookie, site.baseUrl));
      const page = await context.newPage();
      const nativeDialogs: string[] = [];
      page.on('dialog', (dialog) => {
        nativeDialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${site.baseUrl}/admin`);
      const keys = page.locator('#api-key-list');
      await keys.getByText('No API keys yet.').waitFor();

      await page.getByLabel('New key name').fill('deploy script');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('Key created.').waitFor();
      // Listed without a reload.
      await keys.getByRole('cell', { name: 'deploy script' }).waitFor();
      const secret = await page.getByLabel('New API key').inputValue();
      expect(secret).toMatch(/^pk_/);
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await page.locator('#new-key').scrollIntoViewIfNeeded();
      expect(await capture(page, 'paste-admin-new-key')).toBeLessThanOrEqual(390);

      // The key works at once.
      await site.http
        .get('/api/settings/api-keys')
        .set('X-API-Key', secret)
        .expect((response) => {
          if (response.status === 401) throw new Error('the new key was refused');
        });

      // Deleting asks in the page; Cancel keeps it.
      const dialog = page.getByRole('dialog');
      await keys.getByRole('button', { name: 'Delete' }).click();
      expect(await dialog.innerText()).toContain('Delete this API key?');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await keys.getByRole('cell', { name: 'deploy script' }).count()).toBe(1);
      await keys.getByRole('button', { name: 'Delete' }).click();
      await dialog.getByRole('button', { name: 'Delete key' }).click();
      await page.getByText('API key deleted.').waitFor();
      await keys.getByText('No API keys yet.').waitFor();
      expect(nativeDialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('sets the attachment limit in MB: a value out of range is refused with the reason, a good one is saved and shown back', async () => {
    await site.reset();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      await context.addCookies(cookiesOf((await site.session(OWNER_ID)).cookie, site.baseUrl));
      const page = await context.newPage();
      await page.goto(`${site.baseUrl}/admin`);
      const field = page.getByLabel('Maximum attachments (MB)');
      expect(await field.inputValue()).toBe('100');
      const form = page.locator('form', { has: field });
      const status = form.getByRole('status');

      await field.fill('6000');
      await form.getByRole('button', { name: 'Save' }).click();
      await status.getByText(/at most 5120 MB/).waitFor();
      expect(await status.innerText()).toContain('Validation failed');
      await field.scrollIntoViewIfNeeded();
      expect(await capture(page, 'paste-admin-attachment-limit-refused')).toBeLessThanOrEqual(390);

      await field.fill('250');
      await form.getByRole('button', { name: 'Save' }).click();
      await status.getByText('Security settings updated successfully').waitFor();
      expect(site.settings.get().maxAttachmentBytes).toBe(250 * 1024 * 1024);
      await page.reload();
      expect(await page.getByLabel('Maximum attachments (MB)').inputValue()).toBe('250');
      // The new-paste form says the new limit.
      await page.goto(`${site.baseUrl}/`);
      expect(await page.locator('#file-hint').innerText()).toContain('250.0 MB in all');
      await page.goto(`${site.baseUrl}/admin`);
      await page.getByLabel('Maximum attachments (MB)').scrollIntoViewIfNeeded();
      expect(await capture(page, 'paste-admin-attachment-limit')).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  });

  it('marks used-up and expired pastes, clears a search, and deletes with the in-page dialog and a message', async () => {
    await site.reset();
    await site.createPaste({ content: 'still here', title: 'Team notes' });
    const usedUp = await site.createPaste({ content: 'once', title: 'One-time secret', maxViews: 1 });
    await site.http.get(`/paste/${usedUp}`).expect(200);
    const expired = await site.createPaste({ content: 'later', title: 'Old build log', expiresIn: 3600 });
    await site.database.pool.query(`UPDATE pastes SET expires_at = now() - interval '1 minute' WHERE slug = $1`, [
      expired,
    ]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      await context.addCookies(cookiesOf((await site.session(OWNER_ID)).cookie, site.baseUrl));
      const page = await context.newPage();
      const nativeDialogs: string[] = [];
      page.on('dialog', (dialog) => {
        nativeDialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${site.baseUrl}/admin`);
      const rows = page.locator('#pastes tbody tr');
      expect(await rows.count()).toBe(3);
      expect(await rows.filter({ hasText: 'One-time secret' }).innerText()).toContain('Used up');
      expect(await rows.filter({ hasText: 'Old build log' }).innerText()).toContain('Expired');
      expect(await rows.filter({ hasText: 'Team notes' }).innerText()).not.toMatch(/Used up|Expired/);
      const tile = page.locator('.stat').filter({ hasText: 'Pastes' });
      expect(await tile.innerText()).toMatch(/^2\s+Pastes\s+expired ones not counted$/);
      expect(await capture(page, 'paste-admin-list-states')).toBeLessThanOrEqual(390);

      // A search, then Clear: the whole list again.
      await page.getByLabel('Search pastes').fill('team');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(/q=team/);
      expect(await rows.count()).toBe(1);
      expect(await capture(page, 'paste-admin-search')).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#pastes').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(screenshotFolder, 'paste-admin-search-390-screen.png') });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole('link', { name: 'Clear' }).click();
      await page.waitForURL((url) => !url.search.includes('q='));
      expect(await rows.count()).toBe(3);
      expect(await page.getByLabel('Search pastes').inputValue()).toBe('');

      // Delete asks in the page.
      const dialog = page.getByRole('dialog');
      await rows.filter({ hasText: 'Team notes' }).getByRole('button', { name: 'Delete' }).click();
      await dialog.getByRole('button', { name: 'Delete paste' }).waitFor();
      expect(await capture(page, 'paste-admin-delete-dialog')).toBeLessThanOrEqual(390);
      // What a phone shows of it: the dialog over the list.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(screenshotFolder, 'paste-admin-delete-dialog-390-screen.png') });
      await page.setViewportSize({ width: 1280, height: 800 });
      await dialog.getByRole('button', { name: 'Delete paste' }).click();
      await page.getByText(/^Paste \w+ deleted\.$/).waitFor();
      expect(await rows.count()).toBe(2);

      // So does deleting every paste; it says how many went.
      await page.getByRole('button', { name: 'Delete all pastes' }).click();
      expect(await dialog.innerText()).toContain('Delete every paste? This cannot be undone.');
      await dialog.getByRole('button', { name: 'Delete all pastes' }).click();
      await page.getByText('Cleared 2 pastes').waitFor();
      expect(nativeDialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/** A Cookie header's cookies for the browser, on the site's host. */
function cookiesOf(header: string, baseUrl: string) {
  return header
    .split(/;\s*/)
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return { name: pair.slice(0, eq), value: pair.slice(eq + 1), url: baseUrl };
    });
}
