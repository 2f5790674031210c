import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { chromiumForTests } from '@app/http/testing';
import { testDatabaseBackend } from '@app/db/testing';
import { objectKey } from '../src/attachments/attachments.service.js';
import { capture } from './browser.js';
import { startTestSite, type TestSite } from './helpers.js';

// Attachments in Debian's chromium (decisions.md wave 4): the form takes two files, encrypts them
// in chunks with the paste's key while uploading (a progress bar), and a reader in a fresh
// browser context sees their names and sizes and downloads both, decrypted, byte for byte.
const executablePath = chromiumForTests('attachments in a browser');

describe.skipIf(!executablePath)(`attachments in a browser (${testDatabaseBackend()})`, { timeout: 120_000 }, () => {
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

  it('attaches two files, and a fresh context downloads both byte for byte', async () => {
    const first = { name: 'report.csv', mimeType: 'text/csv', buffer: Buffer.from('day,views\n1,2\n'.repeat(9000)) };
    const second = { name: 'photo.bin', mimeType: 'application/octet-stream', buffer: randomBytes(300_000) };

    const creator = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await creator.newPage();
    await page.goto(`${site.baseUrl}/`);
    await page.getByLabel('Content').fill('Two files for you');
    await page.locator('#files').setInputFiles([first, second]);
    const list = page.getByRole('list', { name: 'Files to attach' });
    expect(await list.locator('li').allInnerTexts()).toEqual([
      expect.stringContaining('report.csv'),
      expect.stringContaining('photo.bin'),
    ]);
    await capture(page, 'paste-attach-form');
    await page.getByRole('button', { name: 'Create paste' }).click();
    await page.waitForURL(/\/paste\/[A-Za-z0-9]{8}\/created#[A-Za-z0-9_-]{43}$/);
    const link = await page.getByLabel('Link to share').inputValue();
    await creator.close();

    // The store holds ciphertext only: the CSV's text is in no object.
    for await (const object of site.objects.list('')) {
      const stored = readFileSync(`${(site.objects as unknown as { root: string }).root}/${object.key}`);
      expect(stored.includes(Buffer.from('day,views'))).toBe(false);
    }
    const { rows } = await site.database.pool.query('SELECT id, name FROM paste_attachments ORDER BY position');
    expect(rows.map((row) => row.name)).toEqual([null, null]);
    expect(await site.objects.head(objectKey(rows[0].id))).toBeDefined();

    const reader = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const view = await reader.newPage();
    await view.goto(link);
    await view.locator('#encrypted-paste[data-state="shown"]').waitFor();
    const files = view.locator('#paste-file-list li');
    await files.first().waitFor();
    expect(await files.allInnerTexts()).toEqual([
      expect.stringMatching(/report\.csv\s+123\.0 KB/),
      expect.stringMatching(/photo\.bin\s+293\.0 KB/),
    ]);
    for (const file of [first, second]) {
      const [download] = await Promise.all([
        view.waitForEvent('download'),
        view.getByRole('button', { name: `Download ${file.name}` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(file.name);
      const saved = readFileSync(await download.path());
      expect(saved.equals(file.buffer)).toBe(true);
    }
    await capture(view, 'paste-attach-view');
    await reader.close();
  });
});
