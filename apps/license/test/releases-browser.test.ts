import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('releases and downloads pages');

describe.skipIf(!executablePath)(
  `releases in the console and downloads in the portal (${testDatabaseBackend()})`,
  () => {
    let t: TestApp;
    let browser: Browser;
    let folder: string;
    beforeAll(async () => {
      folder = mkdtempSync(path.join(os.tmpdir(), 'releases-browser-'));
      t = await buildTestApp({ env: { STORAGE_URL: pathToFileURL(path.join(folder, 'objects')).href } });
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    });
    afterAll(async () => {
      await browser?.close();
      await t?.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('an admin creates a release, uploads a file with progress and publishes it; the customer downloads it', async () => {
      const product = await t.createProduct({ name: 'Acme Studio', licensePrefix: 'STUDIO' });
      const page = await pageAs(browser, t.baseUrl, await t.admin());
      await page.goto(`${t.baseUrl}/products/${product._id}`);
      await page.getByRole('link', { name: 'Releases and downloads' }).click();
      await page.getByText('No releases yet.').waitFor();
      await page.getByLabel('Version').fill('2.4.0');
      await page.getByLabel('Notes').fill('Faster exports and a dark theme.');
      await page.getByRole('button', { name: 'Create draft' }).click();
      await page.getByRole('status').getByText('Draft release 2.4.0 created: add its files.').waitFor();

      const bytes = randomBytes(3 * 1024 * 1024);
      await page
        .getByLabel('File', { exact: true })
        .setInputFiles({ name: 'acme-studio-2.4.0.tar.gz', mimeType: 'application/gzip', buffer: bytes });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('cell', { name: 'uploaded' }).waitFor();
      expect(await capture(page, 'releases-draft')).toBeLessThanOrEqual(390);
      await page.getByRole('button', { name: 'Publish 2.4.0' }).click();
      await page.getByRole('status').getByText('Release 2.4.0 published.').waitFor();
      expect(await page.locator('[data-release="2.4.0"] [data-status]').textContent()).toBe('published');

      const { customer, session } = await t.customer({ name: 'Globex' });
      await t.createLicense({ product: product._id, customer: customer._id });
      const portal = await pageAs(browser, t.baseUrl, session);
      await portal.goto(`${t.baseUrl}/`);
      await portal.getByRole('link', { name: 'Downloads' }).click();
      await portal.getByRole('heading', { name: 'Acme Studio 2.4.0' }).waitFor();
      expect(await capture(portal, 'portal-downloads')).toBeLessThanOrEqual(390);
      const [download] = await Promise.all([
        portal.waitForEvent('download'),
        portal.getByRole('link', { name: 'acme-studio-2.4.0.tar.gz' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('acme-studio-2.4.0.tar.gz');
      expect(readFileSync(await download.path()).equals(bytes)).toBe(true);

      await page.reload();
      expect(await page.locator('[data-release="2.4.0"] [data-downloads]').textContent()).toBe('1');
      expect(await capture(page, 'releases-published')).toBeLessThanOrEqual(390);
    });
  },
);
