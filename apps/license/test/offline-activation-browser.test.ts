import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { createActivationRequest, verifyLicenseFile } from '../../../packages/license-client/src/index.js';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Borrowed seats and air-gapped activation as people use them: the portal and the console list
// which machines borrowed their seat and until when, and activate an offline machine from its
// request code, answering the file as a QR code and a download.

const executablePath = chromiumForTests('offline activation pages');
const CODE_LABEL = 'Activation request code';
const BORROW_LABEL = 'Borrowing: offline files for N hours';

describe.skipIf(!executablePath)(
  `borrowed seats and offline activation in a browser (${testDatabaseBackend()})`,
  () => {
    let t: TestApp;
    let browser: Browser;
    let publicKey: string;
    beforeAll(async () => {
      t = await buildTestApp();
      publicKey = (await t.http.get('/api/license/public-key')).body.publicKey as string;
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    });
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    const pageOf = (session: Session): Promise<Page> => pageAs(browser, t.baseUrl, session);
    /** The file behind the page's download button (a data: address of the JSON). */
    const downloadedFile = async (page: Page) => {
      const link = page.getByRole('link', { name: 'Download the license file' });
      const href = String(await link.getAttribute('href'));
      expect(href.startsWith('data:application/json;base64,')).toBe(true);
      return JSON.parse(Buffer.from(href.slice(href.indexOf(',') + 1), 'base64').toString('utf8')) as unknown;
    };

    it('a customer sees the borrowed seat and activates an air-gapped machine: QR code and download', async () => {
      const { customer, session } = await t.customer({ name: 'Olga Offline' });
      const product = await t.createProduct({ name: 'Acme Field Kit', licensePrefix: 'FIELD' });
      const license = await t.createLicense({
        product: product._id,
        customer: customer._id,
        hwidLimit: 3,
        heartbeatSeconds: 60,
        borrowHours: 48,
      });
      await t.http
        .post('/api/license/machines/activate')
        .send({ key: license.key, fingerprint: 'a3f9c2e1d4b5', name: 'Survey laptop', platform: 'linux' })
        .expect(201);
      await t.http
        .post('/api/license/machines/borrow')
        .send({ key: license.key, fingerprint: 'a3f9c2e1d4b5', hours: 48 })
        .expect(200);

      const page = await pageOf(session);
      await page.goto(`${t.baseUrl}/my-licenses/${license._id}`);
      const borrowed = page.locator('[data-borrowed]');
      await borrowed.waitFor();
      expect(await borrowed.textContent()).toMatch(/^Borrowed until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      await page.locator('#devices').scrollIntoViewIfNeeded();
      const widths: Record<string, number> = {};
      widths.borrowed = await capture(page, 'portal-borrowed-seats');

      const code = createActivationRequest({
        key: license.key,
        fingerprint: '7d1e0b2c9a8f6e5d4c3b2a1908f7e6d5c4b3a291',
        name: 'Vessel navigation PC',
        platform: 'windows',
      });
      await page.getByLabel(CODE_LABEL).fill(code);
      await Promise.all([
        page.waitForEvent('load'),
        page.getByRole('button', { name: 'Activate offline machine' }).click(),
      ]);
      await page.getByText('Machine activated: Vessel navigation PC.', { exact: false }).waitFor();
      await page.getByRole('img', { name: 'QR code of the license file' }).waitFor();
      const file = await downloadedFile(page);
      expect(verifyLicenseFile(file, publicKey, { hwid: '7d1e0b2c9a8f6e5d4c3b2a1908f7e6d5c4b3a291' })).toMatchObject({
        valid: true,
        license: { key: license.key },
      });
      expect(await page.locator('[data-borrowed-until]').count()).toBe(1);
      widths.result = await capture(page, 'portal-offline-activation');
      expect(widths).toEqual({ borrowed: 390, result: 390 });
    }, 90_000);

    it('an admin sets borrowing, sees borrowed seats, and activates offline: a bad code is refused beside the form', async () => {
      const product = await t.createProduct({ name: 'Harbor Control Suite', licensePrefix: 'HARBOR' });
      const license = await t.createLicense({ product: product._id, hwidLimit: 2, heartbeatSeconds: 300 });
      const page = await pageOf(await t.admin());
      await page.goto(`${t.baseUrl}/licenses/${license._id}`);
      await page.getByLabel(BORROW_LABEL).fill('72');
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save floating seats' }).click()]);
      await page.getByText('Offline files borrow a seat for up to 72 hours.', { exact: false }).waitFor();
      expect((await t.context.services.licenses.detail(license._id)).borrowHours).toBe(72);

      await t.http
        .post('/api/license/machines/activate')
        .send({ key: license.key, fingerprint: 'c0ffee00c0ffee00', name: 'Crane cabin', platform: 'linux' })
        .expect(201);
      await t.http
        .get(`/api/licenses/${license._id}/file?fingerprint=c0ffee00c0ffee00`)
        .set('Cookie', (await t.admin()).cookie)
        .expect(200);
      await page.goto(`${t.baseUrl}/licenses/${license._id}`);
      await page.getByText('Borrowed until', { exact: false }).first().waitFor();
      await page.locator('#machines').scrollIntoViewIfNeeded();
      const widths: Record<string, number> = {};
      widths.borrowed = await capture(page, 'console-borrowed-seats');

      await page.getByLabel(CODE_LABEL).fill('this is not a code');
      await Promise.all([
        page.waitForEvent('load'),
        page.getByRole('button', { name: 'Activate offline machine' }).click(),
      ]);
      await page.getByText('Activation request code is not valid.').waitFor();
      widths.refused = await capture(page, 'console-offline-refused');

      await page
        .getByLabel(CODE_LABEL)
        .fill(createActivationRequest({ key: license.key, fingerprint: 'bead0000bead0000', name: 'Gate terminal' }));
      await Promise.all([
        page.waitForEvent('load'),
        page.getByRole('button', { name: 'Activate offline machine' }).click(),
      ]);
      await page.getByText('Machine activated: Gate terminal.', { exact: false }).waitFor();
      await page.getByRole('img', { name: 'QR code of the license file' }).waitFor();
      expect(verifyLicenseFile(await downloadedFile(page), publicKey, { hwid: 'bead0000bead0000' })).toMatchObject({
        valid: true,
      });
      widths.result = await capture(page, 'console-offline-activation');
      expect(widths).toEqual({ borrowed: 390, refused: 390, result: 390 });
    }, 90_000);
  },
);
