import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Policies and entitlements as an admin uses them: entitlements and a policy made from the
// Products pages, a license made from the policy with an entitlement of its own, the license page
// changing them, a refused and an accepted delete through the in-page dialog; and the customer's
// "Features". Fields by their labels, buttons by their names.

const executablePath = chromiumForTests('policy pages');

describe.skipIf(!executablePath)(`policies and entitlements in a browser (${testDatabaseBackend()})`, () => {
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
  const submit = (page: Page, name: string) =>
    Promise.all([page.waitForEvent('load'), page.getByRole('button', { name, exact: true }).click()]);

  it('makes entitlements and a policy from Products, a license from the policy, and shows them to the customer', async () => {
    const { customer, session } = await t.customer({ name: 'Fiona Features' });
    await t.createProduct({ name: 'Acme Studio Professional', licensePrefix: 'STUDIO' });
    const page = await pageOf(await t.admin());
    page.on('dialog', (dialog) => {
      throw new Error(`The browser's own dialog opened: ${dialog.message()}`);
    });
    const widths: Record<string, number> = {};

    // Entitlements, reached from Products.
    await page.goto(`${t.baseUrl}/products`);
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('navigation', { name: 'Catalogue' }).getByRole('link', { name: 'Entitlements' }).click(),
    ]);
    await page.getByRole('heading', { name: 'Entitlements', level: 1 }).waitFor();
    widths.empty = await capture(page, 'entitlements-empty');
    for (const [code, name] of [
      ['SSO', 'Single sign-on'],
      ['EXPORT_PDF', 'Export to PDF'],
      ['api.v2', 'API version 2'],
    ]) {
      await page.getByLabel('Code').fill(code!);
      await page.getByLabel('Name', { exact: true }).fill(name!);
      await submit(page, 'Create entitlement');
      await page.getByText(`Entitlement “${name}” created.`).waitFor();
      await page.goto(`${t.baseUrl}/entitlements`);
    }
    // A taken code is said on the form.
    await page.getByLabel('Code').fill('SSO');
    await page.getByLabel('Name', { exact: true }).fill('Again');
    await submit(page, 'Create entitlement');
    await page.getByRole('alert').filter({ hasText: 'Entitlement already exists' }).waitFor();
    await page.goto(`${t.baseUrl}/entitlements`);
    expect(await page.locator('tbody tr').count()).toBe(3);
    widths.entitlements = await capture(page, 'entitlements');

    // A policy with two of them.
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Policies' }).click()]);
    await page.getByLabel('Product').selectOption({ label: 'Acme Studio Professional' });
    await page.getByLabel('Name', { exact: true }).fill('Studio Pro yearly');
    await page.getByLabel('License type').selectOption({ label: 'Fixed' });
    await page.getByLabel('Duration (days)').fill('365');
    await page.getByLabel('Hardware limit').fill('3');
    await page.getByLabel('Sharing limit: addresses a day').fill('25');
    await page.getByLabel('Single sign-on (SSO)').check();
    await page.getByLabel('Export to PDF (EXPORT_PDF)').check();
    await submit(page, 'Create policy');
    await page.getByText('Policy “Studio Pro yearly” created.').waitFor();
    expect(await page.locator('[data-entitlements]').textContent()).toBe('EXPORT_PDF, SSO');
    expect(await page.locator('[data-sharing-limit]').textContent()).toBe('25 addresses a day');
    expect(await page.getByLabel('Sharing limit: addresses a day').inputValue()).toBe('25');
    widths.policy = await capture(page, 'policy');
    await page.goto(`${t.baseUrl}/policies`);
    await page.getByRole('link', { name: 'Studio Pro yearly' }).waitFor();
    widths.policies = await capture(page, 'policies');

    // A license from the policy, for the customer, with an entitlement of its own.
    await page.goto(`${t.baseUrl}/licenses/new`);
    await page
      .getByRole('combobox', { name: /^Policy/ })
      .selectOption({ label: 'Acme Studio Professional: Studio Pro yearly' });
    await page
      .getByLabel('Customer')
      .selectOption({ label: `Fiona Features (${customer.userId ? await customerEmail(customer._id) : ''})` });
    await page.getByLabel('API version 2 (api.v2)').check();
    widths.newLicense = await capture(page, 'license-new-policy');
    await submit(page, 'Create license');
    await page.getByText(/License STUDIO-.* created\./).waitFor();
    expect(await page.locator('[data-policy]').textContent()).toBe('Studio Pro yearly');
    expect((await page.locator('dd[data-entitlements]').textContent())?.replace(/\s+/g, ' ')).toBe(
      'EXPORT_PDF (policy), SSO (policy), api.v2',
    );
    expect(await page.getByLabel('Hardware limit').count()).toBe(0);
    const licenseUrl = page.url();
    const licenseId = licenseUrl.split('/').pop()!;
    const license = (await t.http.get(`/api/licenses/${licenseId}`).set('Cookie', (await t.admin()).cookie)).body
      .license;
    expect(license).toMatchObject({
      hwidLimit: 3,
      entitlements: ['api.v2'],
      effectiveEntitlements: ['EXPORT_PDF', 'SSO', 'api.v2'],
    });
    expect(Date.parse(license.expiresAt) - Date.now()).toBeGreaterThan(364 * 86_400_000);
    // Key sharing: the policy's limit until the license sets its own on its page.
    expect(license).toMatchObject({ sharingAddressLimit: null, effectiveSharingAddressLimit: 25 });
    const sharing = page.getByRole('form', { name: 'Key sharing' });
    await sharing.getByLabel('Sharing limit: addresses a day').fill('5');
    await submit(page, 'Save sharing limit');
    await page.getByText('Sharing limit saved: more than 5 addresses a day flags the license.').waitFor();
    expect(await page.getByLabel('Sharing limit: addresses a day').inputValue()).toBe('5');
    await page.locator('#sharing').scrollIntoViewIfNeeded();
    widths.sharing = await capture(page, 'license-sharing-limit');
    await page.locator('#entitlements').scrollIntoViewIfNeeded();
    widths.license = await capture(page, 'license-entitlements');

    // The license page takes its own entitlement away.
    await page.getByLabel('API version 2 (api.v2)').uncheck();
    await submit(page, 'Save policy and entitlements');
    await page.getByText('Policy and entitlements saved.').waitFor();
    expect((await page.locator('dd[data-entitlements]').textContent())?.replace(/\s+/g, ' ')).toBe(
      'EXPORT_PDF (policy), SSO (policy)',
    );

    // The customer's Features.
    const portal = await pageOf(session);
    await portal.goto(`${t.baseUrl}/my-licenses/${licenseId}`);
    const features = portal.getByRole('list', { name: 'Features of this license' });
    await features.waitFor();
    expect(await features.getByRole('listitem').allTextContents()).toEqual([
      'Export to PDF EXPORT_PDF',
      'Single sign-on SSO',
    ]);
    await portal.locator('#features').scrollIntoViewIfNeeded();
    widths.portal = await capture(portal, 'customer-features');

    // Deleting the policy is refused while the license uses it; Cancel keeps it.
    await page.goto(`${t.baseUrl}/policies`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Studio Pro yearly' }).click()]);
    await page.getByRole('button', { name: 'Delete policy' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('1 license uses it, so it will not be deleted.').waitFor();
    widths.dialog = await capture(page, 'policy-delete-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete policy' }).click();
    await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name: 'Delete policy' }).click()]);
    await page.getByText('Policy in use.').waitFor();

    // An entitlement nothing grants goes after the dialog.
    await page.goto(`${t.baseUrl}/entitlements`);
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'api.v2' }).click()]);
    await page.getByRole('button', { name: 'Delete entitlement' }).click();
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('dialog').getByRole('button', { name: 'Delete entitlement' }).click(),
    ]);
    await page.getByText('Entitlement “API version 2” deleted.').waitFor();
    expect(Object.values(widths)).toEqual(Object.values(widths).map(() => 390));
  }, 90_000);

  async function customerEmail(id: string): Promise<string> {
    const { rows } = await t.database.pool.query<{ email: string }>('SELECT email FROM customers WHERE id = $1', [id]);
    return rows[0]!.email;
  }
});
