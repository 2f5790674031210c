import { documentOf } from '@app/ui/testing/dom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const SCRIPT = '<script>alert(1)</script>';
const ATTRIBUTE = '"><img src=x onerror=alert(1)>';
const URL = 'javascript:alert(1)';
const HOSTILE = `${SCRIPT} ${ATTRIBUTE} ${URL}`;
const ESCAPED_SCRIPT = '&lt;script&gt;alert(1)&lt;/script&gt;';
const ESCAPED_ATTRIBUTE = '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';

/**
 * No hostile string became markup, read as a browser reads the page: no script but the service's
 * own files, no element with an event attribute, no link or source with a script URL.
 */
function expectEscaped(page: string): void {
  expect(page).not.toContain('<script>alert');
  expect(page).not.toMatch(/<img src=x/i);
  const document = documentOf(page);
  const scripts = [...document.querySelectorAll('script:not([type="application/json"])')].map((script) =>
    script.getAttribute('src'),
  );
  expect(scripts.every((src) => src === '/static/ui/ui.js' || src === '/dashboard-assets/dashboard.js')).toBe(true);
  const attributes = [...document.querySelectorAll('*')].flatMap((element) => [...element.attributes]);
  expect(attributes.filter((attribute) => attribute.name.startsWith('on')).map((attribute) => attribute.name)).toEqual(
    [],
  );
  const urls = attributes.filter((attribute) => ['href', 'src', 'action', 'formaction'].includes(attribute.name));
  expect(
    urls.filter((attribute) => /^\s*javascript:/i.test(attribute.value)).map((attribute) => attribute.value),
  ).toEqual([]);
}

/** The page's visible text, as a browser shows it. */
const visibleText = (page: string) => documentOf(page).body.textContent ?? '';

describe(`every license page escapes what admins, customers and visitors typed (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  // Admins whose user ids (and so usernames at the identity provider) are hostile.
  const adminIds = [SCRIPT, ATTRIBUTE, URL];
  beforeAll(async () => {
    t = await buildTestApp({ env: { ADMIN_IDS: adminIds.join(',') } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session?: Session, status = 200) => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    return res.text;
  };

  it('the sign-in page, with a hostile error code in the address', async () => {
    const page = await get(`/?error=${encodeURIComponent(HOSTILE)}`);
    expectEscaped(page);
    expect(visibleText(page)).toContain('Sign in');
  });

  it('the admin dashboard, with hostile product names, license keys and admin usernames', async () => {
    const products = [
      await t.createProduct({ name: SCRIPT, licensePrefix: ATTRIBUTE }),
      await t.createProduct({ name: ATTRIBUTE, licensePrefix: SCRIPT }),
      await t.createProduct({ name: URL, licensePrefix: URL }),
    ];
    const customer = await t.createCustomer({ name: HOSTILE, email: `${ATTRIBUTE}@example.com` });
    const keys = [];
    for (const product of products)
      keys.push((await t.createLicense({ product: product._id, customer: customer._id })).key);

    for (const adminId of adminIds) {
      const page = await get('/', await t.signIn(adminId));
      expectEscaped(page);
      const text = visibleText(page);
      expect(text).toContain('Admin dashboard');
      // The browser shows each hostile string as the text it is.
      expect(text).toContain(`Signed in as ${adminId} (administrator).`);
      for (const key of keys) expect(text).toContain(key);
      for (const product of products) expect(text).toContain(product.name);
    }
    const page = await get('/', await t.signIn(SCRIPT));
    expect(page).toContain(`<strong>${ESCAPED_SCRIPT}</strong>`);
    expect(page).toContain(`title="Signed in">${ESCAPED_SCRIPT}</span>`);
    expect(page).toContain(`<td data-label="Product">${ESCAPED_ATTRIBUTE}</td>`);
  });

  it('the customer page, with hostile customer names, emails, user ids, product names and keys', async () => {
    for (const userId of [`customer ${SCRIPT}`, `customer ${ATTRIBUTE}`, `customer ${URL}`]) {
      const customer = await t.createCustomer({ name: HOSTILE, email: `${SCRIPT}@example.com`, userId });
      const product = await t.createProduct({ name: HOSTILE, licensePrefix: ATTRIBUTE });
      const license = await t.createLicense({
        product: product._id,
        customer: customer._id,
        licenseType: 'consumption',
        credits: 5,
      });
      const page = await get('/', await t.signIn(userId));
      expectEscaped(page);
      const text = visibleText(page);
      expect(text).toContain('Your licenses');
      expect(text).toContain(`Signed in as ${userId} (customer ${HOSTILE}).`);
      expect(text).toContain(license.key);
      expect(page).toContain(
        `<code class="key" id="key-${license._id}">${license.key.replace(ATTRIBUTE, ESCAPED_ATTRIBUTE)}</code>`,
      );
    }
  });

  it('the no-access page of a hostile username', async () => {
    for (const userId of [`stranger ${SCRIPT}`, `stranger ${ATTRIBUTE}`, `${URL}-stranger`]) {
      const page = await get('/', await t.signIn(userId));
      expectEscaped(page);
      expect(visibleText(page)).toContain(`You are signed in as ${userId}, but this account has no access.`);
    }
  });

  it.each([
    `/${encodeURIComponent(SCRIPT)}`,
    `/${encodeURIComponent(ATTRIBUTE)}/deeper`,
    `/${encodeURIComponent(URL)}`,
  ])('the 404 page for %s, signed in as a hostile admin', async (address) => {
    expectEscaped(await get(address, undefined, 404));
    const page = await get(address, await t.signIn(ATTRIBUTE), 404);
    expectEscaped(page);
    expect(page).toContain(`title="Signed in">${ESCAPED_ATTRIBUTE}</span>`);
    expect(visibleText(page)).toContain('Page not found');
  });
});

describe(`the two-factor page escapes the admin's username (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ADMIN_IDS: [SCRIPT, ATTRIBUTE].join(','), TWO_FACTOR_REQUIRED: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([SCRIPT, ATTRIBUTE])('for %s', async (adminId) => {
    const res = await t.http.get('/').set('Cookie', (await t.signIn(adminId)).cookie);
    expect(res.status).toBe(200);
    expectEscaped(res.text);
    expect(res.text).toContain('id="two-factor-setup"');
    expect(visibleText(res.text)).toContain(`Signed in as ${adminId}.`);
  });
});
