import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Machines and floating seats as people use them: an admin deactivates a machine through the
// in-page dialog and sets floating seats with the forms; a customer sees their machines.

const executablePath = chromiumForTests('machine pages');
const SEATS_LABEL = 'Floating seats: heartbeat every N seconds';

describe.skipIf(!executablePath)(`machines and floating seats in a browser (${testDatabaseBackend()})`, () => {
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

  const pageOf = (session: Session): Promise<Page> => pageAs(browser, t.baseUrl, session);
  const activate = (key: string, fingerprint: string, name?: string, platform?: string) =>
    t.http.post('/api/license/machines/activate').send({ key, fingerprint, name, platform }).expect(201);
  const fingerprints = async (id: string) =>
    (await t.context.services.machines.list(id)).map((machine) => machine.fingerprint);

  it('deactivates a machine through the in-page dialog; Cancel keeps it', async () => {
    const { customer, session } = await t.customer({ name: 'Mira Machines' });
    const product = await t.createProduct({ name: 'Acme Studio Professional', licensePrefix: 'STUDIO' });
    const license = await t.createLicense({ product: product._id, customer: customer._id, hwidLimit: 3 });
    await activate(license.key, 'd41d8cd98f00b204e9800998ecf8427e', 'Office laptop', 'linux');
    await activate(
      license.key,
      '9e107d9d372bb6826bd81d3542a419d6',
      'Render node with a rather long machine name',
      'windows',
    );
    await t.http
      .post('/api/license/validate')
      .send({ key: license.key, hwid: 'e4d909c290d0fb1ca068ffaddf22cbd0' })
      .expect(200);

    const page = await pageOf(await t.admin());
    page.on('dialog', (dialog) => {
      throw new Error(`The browser's own dialog opened: ${dialog.message()}`);
    });
    await page.goto(`${t.baseUrl}/licenses/${license._id}`);
    await page.getByRole('heading', { name: 'Machines' }).waitFor();
    const widths: Record<string, number> = {};
    widths.machines = await capture(page, 'machines');

    const deactivate = page.getByRole('button', { name: 'Deactivate Office laptop' });
    const dialog = page.getByRole('dialog');
    await deactivate.click();
    await dialog.getByText('Deactivate the machine Office laptop?').waitFor();
    widths.dialog = await capture(page, 'machine-deactivate-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await fingerprints(license._id)).toHaveLength(3);

    await deactivate.click();
    await Promise.all([
      page.waitForEvent('load'),
      dialog.getByRole('button', { name: 'Deactivate', exact: true }).click(),
    ]);
    await page.getByText('Machine Office laptop deactivated.').waitFor();
    expect(await page.getByRole('button', { name: 'Deactivate Office laptop' }).count()).toBe(0);
    expect(await fingerprints(license._id)).toEqual([
      '9e107d9d372bb6826bd81d3542a419d6',
      'e4d909c290d0fb1ca068ffaddf22cbd0',
    ]);
    widths.deactivated = await capture(page, 'machine-deactivated');

    // The customer sees the two left, by name or fingerprint, each with Release.
    const portal = await pageOf(session);
    await portal.goto(`${t.baseUrl}/my-licenses/${license._id}`);
    await portal.getByRole('button', { name: 'Release Render node with a rather long machine name' }).waitFor();
    await portal.getByRole('button', { name: 'Release e4d909c290d0fb1ca068ffaddf22cbd0' }).waitFor();
    await portal.locator('#devices').scrollIntoViewIfNeeded();
    widths.portal = await capture(portal, 'customer-machines');
    expect(widths).toEqual({ machines: 390, dialog: 390, deactivated: 390, portal: 390 });
  }, 60_000);

  it("sets floating seats with the license page's form and the new-license form", async () => {
    const product = await t.createProduct({ name: 'Seat Pool', licensePrefix: 'SEATS' });
    const license = await t.createLicense({ product: product._id, hwidLimit: 2 });
    const page = await pageOf(await t.admin());
    await page.goto(`${t.baseUrl}/licenses/${license._id}`);
    await page
      .getByText('No machines yet: a machine is added when an application activates or validates with a hardware id.')
      .waitFor();
    await page.getByLabel(SEATS_LABEL).fill('120');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save floating seats' }).click()]);
    await page.getByText('Floating seats saved: heartbeat every 120 seconds.').waitFor();
    expect(await page.getByLabel(SEATS_LABEL).inputValue()).toBe('120');
    expect((await t.context.services.licenses.detail(license._id)).heartbeatSeconds).toBe(120);
    const widths: Record<string, number> = {};
    widths.seats = await capture(page, 'floating-seats');

    await page.goto(`${t.baseUrl}/licenses/new`);
    await page.getByLabel('Product').selectOption({ label: 'Seat Pool' });
    await page.getByLabel('Hardware limit').fill('3');
    await page.getByLabel(SEATS_LABEL).fill('900');
    widths.create = await capture(page, 'floating-seats-new');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Create license' }).click()]);
    await page.getByText(/^License .+ created\.$/).waitFor();
    const id = new URL(page.url()).pathname.replace('/licenses/', '');
    expect(await t.context.services.licenses.detail(id)).toMatchObject({ hwidLimit: 3, heartbeatSeconds: 900 });
    expect(widths).toEqual({ seats: 390, create: 390 });
  }, 60_000);
});
