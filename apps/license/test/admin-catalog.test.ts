import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, testAdminId, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

const HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(1)>';

/** The visible text of a page, spaces collapsed. */
const uuidPath = (base: string) => new RegExp(`^${base}/[0-9a-f-]{36}$`);

describe(`the admin console's product and customer pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session: Session | null = admin, status = 200) => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status, `${path} answered ${res.status}`).toBe(status);
    return res;
  };
  /** A form post as a browser sends it (urlencoded), with the session's token unless told otherwise. */
  const post = (path: string, fields: Record<string, string>, session: Session = admin, csrf = true) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send(csrf ? { _csrf: session.csrfToken, ...fields } : fields);

  const auditOf = async (resourceId: string) =>
    (
      await t.database.pool.query<{ action: string; user_id: string; success: boolean }>(
        'SELECT action, user_id, success FROM audit_logs WHERE resource_id = $1 ORDER BY created_at, action',
        [resourceId],
      )
    ).rows;
  const productCount = async (name: string) =>
    Number((await t.database.pool.query('SELECT count(*) AS n FROM products WHERE name = $1', [name])).rows[0].n);

  it('shows the empty states first, with a labelled search box and labelled forms', async () => {
    for (const [path, empty, heading, labels] of [
      [
        '/products',
        'No products yet.',
        'New product',
        ['Name', 'Description', 'License prefix', 'Active (new licenses can be issued for it)'],
      ],
      ['/customers', 'No customers yet.', 'New customer', ['Name', 'Email', 'Provider user id']],
    ] as const) {
      const res = await get(path);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      const document = documentOf(res.text);
      expect(textOf(res.text)).toContain(empty);
      expect(document.querySelector('nav.admin-nav a[aria-current="page"]')?.getAttribute('href')).toBe(path);
      expect(document.querySelector('form[role="search"] label input[type="search"][name="q"]')).not.toBeNull();
      const form = document.querySelector(`form[action="${path}"][method="post"]`)!;
      expect(
        document.querySelector(`#${path.slice(1, -1)}-heading, #new-${path.slice(1, -1)}-heading`)?.textContent,
      ).toBe(heading);
      expect(form.querySelector('input[type="hidden"][name="_csrf"]')?.getAttribute('value')).toBe(admin.csrfToken);
      // Every field sits inside its visible label.
      const fields = [...form.querySelectorAll('input:not([type="hidden"]), textarea')];
      expect(
        fields.map(
          (field) =>
            field
              .closest('label')
              ?.textContent?.replace(/\s+/g, ' ')
              .trim()
              .split(/ (?=Starts|The id)/)[0],
        ),
      ).toEqual(labels);
    }
  });

  it('sends visitors to sign in and refuses signed-in people who are not admins, to look or to write', async () => {
    for (const path of ['/products', '/customers']) {
      const visitor = await get(path, null, 303);
      expect(String(visitor.headers.location)).toBe(`/?returnTo=${encodeURIComponent(path)}`);
    }
    const { session } = await t.customer({ name: 'Not An Admin' });
    const product = await t.createProduct({ name: 'Guarded product' });
    for (const path of ['/products', '/customers', `/products/${product._id}`]) {
      // A customer goes to their portal (customer-console-addresses.test.ts).
      const res = await get(path, session, 303);
      expect(res.headers.location).toBe('/');
      expect(res.text).not.toContain('Guarded product</');
    }
    const write = await post('/products', { name: 'Sneaky product' }, session);
    expect(write.status).toBe(403);
    const removal = await post(`/products/${product._id}/delete`, {}, session);
    expect(removal.status).toBe(403);
    expect(await productCount('Sneaky product')).toBe(0);
    expect(await productCount('Guarded product')).toBe(1);
  });

  it('creates, edits and deletes a product through the forms, each audited like the API, with a message shown once', async () => {
    const created = await post('/products', {
      name: 'Form Studio',
      description: 'Made by a form',
      licensePrefix: 'FORM',
      isActive: 'on',
    });
    expect(created.status).toBe(303);
    expect(String(created.headers.location)).toMatch(uuidPath('/products'));
    const id = String(created.headers.location).split('/').pop()!;

    const page = await get(String(created.headers.location));
    const document = documentOf(page.text);
    expect(document.querySelector('h1')?.textContent).toContain('Form Studio');
    expect(document.querySelector('.alert-success')?.textContent).toBe('Product “Form Studio” created.');
    expect(document.querySelector('[data-count="licenses"]')?.textContent).toBe('0');
    expect(document.querySelector('[data-count="active-licenses"]')?.textContent).toBe('0');
    expect(document.querySelector('form[action$="/delete"]')?.getAttribute('data-ui-confirm')).toBe(
      'Delete the product “Form Studio”? This cannot be undone.',
    );
    const edit = document.querySelector(`form[action="/products/${id}"]`)!;
    expect(edit.querySelector('input[name="name"]')?.getAttribute('value')).toBe('Form Studio');
    expect(edit.querySelector('textarea[name="description"]')?.textContent).toBe('Made by a form');
    expect(edit.querySelector('input[name="licensePrefix"]')?.getAttribute('value')).toBe('FORM');
    expect(edit.querySelector('input[name="isActive"]')?.hasAttribute('checked')).toBe(true);
    expect(edit.querySelector('button[type="submit"]')?.textContent).toBe('Save');
    // Once: the next visit has no message.
    expect(documentOf((await get(String(created.headers.location))).text).querySelector('.alert-success')).toBeNull();

    // The API sees what the form made.
    const api = await t.http.get(`/api/products/${id}`).set(admin.headers).expect(200);
    expect(api.body.product).toMatchObject({
      name: 'Form Studio',
      description: 'Made by a form',
      licensePrefix: 'FORM',
      isActive: true,
    });

    // Unticking the box is sending no field at all.
    const saved = await post(`/products/${id}`, {
      name: 'Form Studio 2',
      description: 'Edited',
      licensePrefix: 'FORM2',
    });
    expect(saved.status).toBe(303);
    expect(String(saved.headers.location)).toBe(`/products/${id}`);
    expect(textOf((await get(String(saved.headers.location))).text)).toContain('Product “Form Studio 2” saved.');
    const after = (await t.http.get(`/api/products/${id}`).set(admin.headers).expect(200)).body.product;
    expect(after).toMatchObject({
      name: 'Form Studio 2',
      description: 'Edited',
      licensePrefix: 'FORM2',
      isActive: false,
    });

    const deleted = await post(`/products/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(String(deleted.headers.location)).toBe('/products');
    expect(textOf((await get('/products')).text)).toContain('Product “Form Studio 2” deleted.');
    await t.http.get(`/api/products/${id}`).set(admin.headers).expect(404);
    await get(`/products/${id}`, admin, 404);

    expect(await auditOf(id)).toEqual([
      { action: 'create', user_id: testAdminId, success: true },
      { action: 'update', user_id: testAdminId, success: true },
      { action: 'delete', user_id: testAdminId, success: true },
    ]);
  });

  it('makes the license prefix from the name when it is left blank', async () => {
    const created = await post('/products', {
      name: 'Blank prefix app',
      description: '',
      licensePrefix: '  ',
      isActive: 'on',
    });
    expect(created.status).toBe(303);
    const id = String(created.headers.location).split('/').pop()!;
    expect((await t.http.get(`/api/products/${id}`).set(admin.headers).expect(200)).body.product.licensePrefix).toBe(
      'BLANKPRE',
    );
  });

  it('refuses form posts without the CSRF token, or with a wrong one', async () => {
    const attempts: Array<Record<string, string>> = [
      { name: 'No token product' },
      { name: 'No token product', _csrf: 'not-the-token' },
    ];
    for (const fields of attempts) {
      const res = await post('/products', fields, admin, false);
      expect(res.status).toBe(403);
    }
    expect(await productCount('No token product')).toBe(0);
    const customer = await t.createCustomer({ name: 'Kept without token' });
    expect((await post(`/customers/${customer._id}/delete`, {}, admin, false)).status).toBe(403);
    await t.http.get(`/api/customers/${customer._id}`).set(admin.headers).expect(200);
  });

  it('shows what is wrong next to the values entered, and saves nothing', async () => {
    const res = await post('/products', {
      name: '   ',
      description: 'Keep this text',
      licensePrefix: 'bad prefix!',
      isActive: 'on',
    });
    expect(res.status).toBe(400);
    const document = documentOf(res.text);
    const alert = document.querySelector('form[action="/products"] .alert-error')?.textContent ?? '';
    expect(alert).toContain('Name: enter 1 to 200 characters.');
    expect(alert).toContain(
      'License prefix: Must be 1 to 20 letters, digits, "-" or "_", starting with a letter or digit',
    );
    expect(document.querySelector('form[action="/products"] textarea[name="description"]')?.textContent).toBe(
      'Keep this text',
    );
    expect(document.querySelector('form[action="/products"] input[name="licensePrefix"]')?.getAttribute('value')).toBe(
      'bad prefix!',
    );
    expect(await productCount('Keep this text')).toBe(0);

    const product = await t.createProduct({ name: 'Valid before' });
    const edit = await post(`/products/${product._id}`, { name: '', description: 'x', licensePrefix: 'OK' });
    expect(edit.status).toBe(400);
    expect(textOf(edit.text)).toContain('Name: enter 1 to 200 characters.');
    expect((await t.http.get(`/api/products/${product._id}`).set(admin.headers)).body.product.name).toBe(
      'Valid before',
    );

    const customer = await post('/customers', { name: 'Mail-less', email: 'not-an-email', userId: '' });
    expect(customer.status).toBe(400);
    expect(textOf(customer.text)).toContain('Email: enter an email address, like name@example.com.');
    expect(
      documentOf(customer.text).querySelector('form[action="/customers"] input[name="email"]')?.getAttribute('value'),
    ).toBe('not-an-email');
  });

  it('keeps a product that has licenses and says why', async () => {
    const product = await t.createProduct({ name: 'Licensed product' });
    await t.createLicense({ product: product._id });
    await t.createLicense({ product: product._id, expiresAt: new Date(Date.now() - 86_400_000) });
    const page = documentOf((await get(`/products/${product._id}`)).text);
    expect(page.querySelector('[data-count="licenses"]')?.textContent).toBe('2');
    expect(page.querySelector('[data-count="active-licenses"]')?.textContent).toBe('1');
    expect(page.querySelector('form[action$="/delete"]')?.getAttribute('data-ui-confirm')).toContain(
      'It has 2 licenses, so it will not be deleted.',
    );

    const res = await post(`/products/${product._id}/delete`, {});
    expect(res.status).toBe(303);
    expect(String(res.headers.location)).toBe(`/products/${product._id}`);
    const after = documentOf((await get(String(res.headers.location))).text);
    expect(after.querySelector('.alert-error')?.textContent).toBe('Product has licenses and cannot be deleted.');
    await t.http.get(`/api/products/${product._id}`).set(admin.headers).expect(200);
    // Audited as the API audits a refused delete: failed, with the error.
    const { rows } = await t.database.pool.query<{ action: string; success: boolean; changes: { after: unknown } }>(
      'SELECT action, success, changes FROM audit_logs WHERE resource_id = $1',
      [product._id],
    );
    expect(rows).toEqual([
      {
        action: 'delete',
        success: false,
        changes: { before: null, after: { status: 400, error: 'Product has licenses and cannot be deleted' } },
      },
    ]);
  });

  it('escapes hostile names everywhere they show', async () => {
    const created = await post('/products', {
      name: HOSTILE,
      description: HOSTILE,
      licensePrefix: 'HOSTILE',
      isActive: 'on',
    });
    expect(created.status).toBe(303);
    const customer = await post('/customers', { name: HOSTILE, email: 'hostile@example.com', userId: HOSTILE });
    expect(customer.status).toBe(303);
    for (const path of [
      String(created.headers.location),
      '/products',
      String(customer.headers.location),
      '/customers',
      `/products?q=${encodeURIComponent(HOSTILE)}`,
    ]) {
      const html = (await get(path)).text;
      expect(html, path).not.toContain('<script>alert(1)</script>');
      expect(html, path).not.toContain('<img src=x');
      const document = documentOf(html);
      expect(document.querySelectorAll('img[src="x"], script:not([src]):not([type="application/json"])')).toHaveLength(
        0,
      );
      expect(textOf(html), path).toContain(HOSTILE);
    }
    const detail = documentOf((await get(String(created.headers.location))).text);
    expect(detail.querySelector('h1')?.textContent).toContain(HOSTILE);
    expect(detail.querySelector('form[action$="/delete"]')?.getAttribute('data-ui-confirm')).toBe(
      `Delete the product “${HOSTILE}”? This cannot be undone.`,
    );
  });

  it('searches product names in any case, pages through 20 at a time, and takes % and _ literally', async () => {
    for (let n = 1; n <= 23; n += 1) await t.createProduct({ name: `Paging Widget ${String(n).padStart(2, '0')}` });
    await t.createProduct({ name: '100% Pure' });
    const first = documentOf((await get('/products?q=paging%20WIDGET')).text);
    expect(first.querySelectorAll('tr[data-product]')).toHaveLength(20);
    expect(first.querySelector('.page-head p')?.textContent).toBe('23 products matching “paging WIDGET”');
    const next = first.querySelector('nav[aria-label="Pages"] a[rel="next"]')?.getAttribute('href');
    expect(next).toBe('/products?q=paging+WIDGET&page=2');
    const second = documentOf((await get(next!)).text);
    expect(second.querySelectorAll('tr[data-product]')).toHaveLength(3);
    expect(documentOf((await get('/products?q=0%25')).text).querySelectorAll('tr[data-product]')).toHaveLength(1);
    expect(documentOf((await get('/products?q=_')).text).querySelectorAll('tr[data-product]')).toHaveLength(0);
    const none = textOf((await get('/products?q=nothing-like-this')).text);
    expect(none).toContain('No product matches “nothing-like-this”.');
    // What the address cannot hold falls back instead of failing.
    await get('/products?page=-3&q=');
  });

  it('creates, edits (a taken user id answers 409 with the form) and deletes a customer, whose licenses stay', async () => {
    const created = await post('/customers', {
      name: 'Form Customer',
      email: ' form@example.com ',
      userId: 'form-user',
    });
    expect(created.status).toBe(303);
    expect(String(created.headers.location)).toMatch(uuidPath('/customers'));
    const id = String(created.headers.location).split('/').pop()!;
    const page = documentOf((await get(String(created.headers.location))).text);
    expect(page.querySelector('.alert-success')?.textContent).toBe('Customer “Form Customer” created.');
    expect(page.querySelector('[data-count="licenses"]')?.textContent).toBe('0');

    const taken = await post('/customers', { name: 'Second', email: 'second@example.com', userId: 'form-user' });
    expect(taken.status).toBe(409);
    const takenPage = documentOf(taken.text);
    expect(takenPage.querySelector('form[action="/customers"] .alert-error')?.textContent).toBe(
      'A customer with this userId already exists',
    );
    expect(takenPage.querySelector('form[action="/customers"] input[name="name"]')?.getAttribute('value')).toBe(
      'Second',
    );

    const license = await t.createLicense({ customer: id });
    const licensed = documentOf((await get(String(created.headers.location))).text);
    expect(licensed.querySelector('[data-count="licenses"]')?.textContent).toBe('1');
    expect(licensed.querySelector('form[action$="/delete"]')?.getAttribute('data-ui-confirm')).toBe(
      'Delete the customer “Form Customer”? Their 1 license stays and keeps working, without a customer.',
    );

    // An empty provider user id unlinks the sign-in.
    const saved = await post(`/customers/${id}`, {
      name: 'Form Customer Renamed',
      email: 'renamed@example.com',
      userId: '',
    });
    expect(saved.status).toBe(303);
    const api = (await t.http.get(`/api/customers/${id}`).set(admin.headers).expect(200)).body.customer;
    expect(api).toMatchObject({ name: 'Form Customer Renamed', email: 'renamed@example.com', userId: null });

    const other = await t.createCustomer({ name: 'Other', userId: 'other-user' });
    const conflict = await post(`/customers/${id}`, {
      name: 'Form Customer Renamed',
      email: 'renamed@example.com',
      userId: 'other-user',
    });
    expect(conflict.status).toBe(409);
    expect(textOf(conflict.text)).toContain('A customer with this userId already exists');
    expect(await auditOf(id)).toContainEqual({ action: 'update', user_id: testAdminId, success: false });
    expect(other.userId).toBe('other-user');

    const deleted = await post(`/customers/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(String(deleted.headers.location)).toBe('/customers');
    expect(textOf((await get('/customers')).text)).toContain(
      'Customer “Form Customer Renamed” deleted. Their licenses stay, without a customer.',
    );
    const kept = (await t.http.get(`/api/licenses/${license._id}`).set(admin.headers).expect(200)).body.license;
    expect(kept.customer ?? null).toBeNull();
    expect((await auditOf(id)).filter((entry) => entry.success).map((entry) => entry.action)).toEqual([
      'create',
      'update',
      'delete',
    ]);
  });

  it('searches customers by name or email and answers 404 pages for unknown ids', async () => {
    await t.createCustomer({ name: 'Searchable Person', email: 'findme@example.org' });
    const byMail = documentOf((await get('/customers?q=FINDME')).text);
    expect(
      [...byMail.querySelectorAll('tr[data-customer] td[data-label="Name"]')].map((cell) => cell.textContent),
    ).toEqual(['Searchable Person']);
    for (const path of ['/customers/not-a-uuid', '/customers/00000000-0000-4000-8000-000000000000', '/products/nope']) {
      const res = await get(path, admin, 404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});
