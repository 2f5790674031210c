import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('admin console product and customer pages');

describe.skipIf(!executablePath)(
  `the admin console's products and customers in a browser (${testDatabaseBackend()})`,
  () => {
    let t: TestApp;
    let browser: Browser;
    let admin: Session;
    beforeAll(async () => {
      t = await buildTestApp();
      admin = await t.admin();
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    });
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    const pageOf = (session: Session): Promise<Page> => pageAs(browser, t.baseUrl, session);

    it('creates, edits and deletes a product by its labels and buttons, and keeps one that has licenses', async () => {
      const page = await pageOf(admin);
      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Products' }).click();
      await page.getByText('No products yet.').waitFor();
      expect(await capture(page, 'admin-products-empty')).toBeLessThanOrEqual(390);

      // A mistake first: the form says what is wrong and keeps what was typed.
      await page.getByLabel('Description').fill('Desktop suite for image and video editing');
      await page.getByLabel('License prefix').fill('not a prefix!');
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.getByRole('alert').getByText('Name: enter 1 to 200 characters.').waitFor();
      expect(await page.getByLabel('Description').inputValue()).toBe('Desktop suite for image and video editing');
      expect(await capture(page, 'admin-products-error')).toBeLessThanOrEqual(390);

      await page.getByLabel('Name', { exact: true }).fill('Acme Studio Professional');
      await page.getByLabel('License prefix').fill('STUDIO');
      expect(await page.getByLabel('Active').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.getByRole('status').getByText('Product “Acme Studio Professional” created.').waitFor();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Acme Studio Professional');
      const productUrl = page.url();

      await page.getByLabel('Name', { exact: true }).fill('Acme Studio Pro');
      await page.getByLabel('Active').uncheck();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Product “Acme Studio Pro” saved.').waitFor();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('inactive');
      expect(await capture(page, 'admin-product')).toBeLessThanOrEqual(390);

      // A product with licenses: the page counts them, and deleting it is refused with the reason.
      const licensed = await t.createProduct({ name: 'Render Farm Credits', licensePrefix: 'RENDER' });
      for (let n = 0; n < 3; n += 1) await t.createLicense({ product: licensed._id });
      await page.goto(`${t.baseUrl}/products`);
      await page.getByRole('link', { name: 'Render Farm Credits' }).click();
      expect(await page.locator('[data-count="licenses"]').textContent()).toBe('3');
      await page.getByRole('button', { name: 'Delete product' }).click();
      const refuse = page.getByRole('dialog');
      expect(await refuse.textContent()).toContain('It has 3 licenses, so it will not be deleted.');
      await refuse.getByRole('button', { name: 'Delete product' }).click();
      await page.getByRole('alert').getByText('Product has licenses and cannot be deleted.').waitFor();
      expect(await capture(page, 'admin-product-has-licenses')).toBeLessThanOrEqual(390);

      // The list, with both.
      await page.goto(`${t.baseUrl}/products`);
      await page.getByRole('link', { name: 'Acme Studio Pro' }).waitFor();
      expect(await capture(page, 'admin-products')).toBeLessThanOrEqual(390);
      await page.getByLabel('Search products by name').fill('render');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: 'Render Farm Credits' }).waitFor();
      expect(await page.getByRole('link', { name: 'Acme Studio Pro' }).count()).toBe(0);

      // Cancel keeps it; confirming deletes it.
      await page.goto(productUrl);
      await page.getByRole('button', { name: 'Delete product' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect(page.url()).toBe(productUrl);
      await page.getByRole('button', { name: 'Delete product' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete product' }).click();
      await page.getByRole('status').getByText('Product “Acme Studio Pro” deleted.').waitFor();
      expect(new URL(page.url()).pathname).toBe('/products');
      expect(await page.getByRole('link', { name: 'Acme Studio Pro' }).count()).toBe(0);
    }, 60_000);

    it('creates, edits and deletes a customer by its labels and buttons; their licenses stay', async () => {
      const page = await pageOf(admin);
      await page.goto(`${t.baseUrl}/customers`);
      await page.getByText('No customers yet.').waitFor();
      expect(await capture(page, 'admin-customers-empty')).toBeLessThanOrEqual(390);

      await page.getByLabel('Name', { exact: true }).fill('Carol Example Industries');
      await page.getByLabel('Email', { exact: true }).fill('carol@example.com');
      await page.getByLabel('Provider user id').fill('carol-at-the-identity-provider-with-a-long-id');
      await page.getByRole('button', { name: 'Create customer' }).click();
      await page.getByRole('status').getByText('Customer “Carol Example Industries” created.').waitFor();
      const customerId = new URL(page.url()).pathname.split('/').pop()!;
      const theirs = [await t.createLicense({ customer: customerId }), await t.createLicense({ customer: customerId })];
      await page.reload();
      expect(await page.locator('[data-count="licenses"]').textContent()).toBe('2');

      await page.getByLabel('Email', { exact: true }).fill('accounts@example.com');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Customer “Carol Example Industries” saved.').waitFor();
      expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('accounts@example.com');
      expect(await capture(page, 'admin-customer')).toBeLessThanOrEqual(390);

      await t.createCustomer({
        name: 'Dana Long-Surname-Hyphenated Holdings',
        email: 'dana.with.a.rather.long.address@subsidiary.example.com',
      });
      await page.goto(`${t.baseUrl}/customers`);
      await page.getByRole('link', { name: 'Dana Long-Surname-Hyphenated Holdings' }).waitFor();
      expect(await capture(page, 'admin-customers')).toBeLessThanOrEqual(390);

      await page.getByRole('link', { name: 'Carol Example Industries' }).click();
      await page.getByRole('button', { name: 'Delete customer' }).click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.textContent()).toContain('Their 2 licenses stay and keep working, without a customer.');
      await dialog.getByRole('button', { name: 'Delete customer' }).click();
      await page.getByRole('status').getByText('Customer “Carol Example Industries” deleted.').waitFor();
      for (const license of theirs) {
        const kept = (await t.http.get(`/api/licenses/${license._id}`).set(admin.headers).expect(200)).body.license;
        expect(kept.customer ?? null).toBeNull();
      }
    }, 60_000);
  },
);
