import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { walkSignIn } from '@app/auth/testing';
import { buildTestApp, testAdminId, type Session, type TestApp } from './helpers.js';
import { documentOf, formToken, textOf } from '@app/ui/testing/dom';

const day = 86_400_000;
const HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(1)>';

/** The session's form token, as the pages put it in their forms' `_csrf` field. */

describe(`the admin console's license pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session: Session | undefined = admin, status = 200) => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status, `${path} answered ${res.status}`).toBe(status);
    return res.text;
  };
  const listedIds = (html: string) =>
    [...documentOf(html).querySelectorAll('tr[data-license]')].map((row) => row.getAttribute('data-license')).sort();

  it('lists licenses with labelled filters that work: product, customer, type, state, expiring within N days, key search', async () => {
    const alpha = await t.createProduct({ name: 'Filter Alpha', licensePrefix: 'ALPHA' });
    const beta = await t.createProduct({ name: 'Filter Beta', licensePrefix: 'BETA' });
    const dana = await t.createCustomer({ name: 'Dana Filter' });
    const soon = await t.createLicense({
      product: alpha._id,
      customer: dana._id,
      expiresAt: new Date(Date.now() + 5 * day),
    });
    const later = await t.createLicense({ product: alpha._id, expiresAt: new Date(Date.now() + 60 * day) });
    const trial = await t.createLicense({ product: beta._id, licenseType: 'trial' });
    const suspended = await t.createLicense({ product: beta._id, customer: dana._id });
    await t.context.services.licenses.suspend({ userId: 'test', ip: null, userAgent: null }, suspended._id, 'test');

    const page = await get('/licenses');
    const document = documentOf(page);
    expect(document.querySelector('h1')?.textContent).toBe('Licenses');
    expect(document.querySelector('.admin-nav a[aria-current="page"]')?.textContent).toBe('Licenses');
    for (const label of ['Product', 'Customer', 'Type', 'State', 'Expiring within (days)', 'Key contains']) {
      const found = [...document.querySelectorAll('form.filters label')].find(
        (element) => element.querySelector('.label')?.textContent === label,
      );
      expect(found?.querySelector('select, input'), label).toBeTruthy();
    }
    expect(listedIds(await get(`/licenses?product=${alpha._id}`))).toEqual([soon._id, later._id].sort());
    expect(listedIds(await get(`/licenses?customer=${dana._id}`))).toEqual([soon._id, suspended._id].sort());
    expect(listedIds(await get(`/licenses?product=${beta._id}&type=trial`))).toEqual([trial._id]);
    expect(listedIds(await get(`/licenses?product=${beta._id}&state=suspended`))).toEqual([suspended._id]);
    expect(listedIds(await get(`/licenses?product=${beta._id}&state=active`))).toEqual([trial._id]);
    expect(listedIds(await get(`/licenses?product=${alpha._id}&expiresWithinDays=10`))).toEqual([soon._id]);
    // The form sends its empty fields too: an empty "Expiring within (days)" is no filter, not 0 days.
    expect(
      listedIds(
        await get(
          `/licenses?product=${alpha._id}&customer=&type=&state=&expiresWithinDays=&search=${soon.key.slice(-8)}`,
        ),
      ),
    ).toEqual([soon._id]);
    // The API's list takes the same filter.
    const api = await t.http
      .get(`/api/licenses?product=${alpha._id}&expiresWithinDays=10`)
      .set(admin.headers)
      .expect(200);
    expect(api.body.licenses.map((license: { _id: string }) => license._id)).toEqual([soon._id]);
    expect(listedIds(await get(`/licenses?search=${encodeURIComponent(later.key.slice(-12))}`))).toEqual([later._id]);
    // The chosen filters stay chosen.
    const filtered = documentOf(await get(`/licenses?product=${alpha._id}&state=active`));
    expect(filtered.querySelector<HTMLSelectElement>('select[name="product"]')?.value).toBe(alpha._id);
    expect(filtered.querySelector<HTMLSelectElement>('select[name="state"]')?.value).toBe('active');
    // Unreadable filters are dropped instead of failing the page.
    await get('/licenses?product=nope&expiresWithinDays=-3&page=x');

    const none = textOf(await get('/licenses?search=NO-SUCH-KEY-ANYWHERE'));
    expect(none).toContain('No licenses match these filters.');
  });

  it('pages through the list', async () => {
    const product = await t.createProduct({ name: 'Paged Product' });
    for (let n = 0; n < 27; n += 1) await t.createLicense({ product: product._id });
    const first = await get(`/licenses?product=${product._id}`);
    expect(listedIds(first)).toHaveLength(25);
    const next = documentOf(first).querySelector('.pagination a[rel="next"]')?.getAttribute('href');
    expect(next).toBe(`/licenses?product=${product._id}&page=2`);
    expect(listedIds(await get(next!))).toHaveLength(2);
    const past = await t.http.get(`/licenses?product=${product._id}&page=9`).set('Cookie', admin.cookie).expect(302);
    expect(past.headers.location).toBe(`/licenses?product=${product._id}&page=2`);
  });

  it('shows a license with every field, its IPs and hardware ids, the chart, recent records and its audit trail', async () => {
    const customer = await t.createCustomer({ name: 'Erin Detail', email: 'erin@example.com' });
    const product = await t.createProduct({ name: 'Detail Product', licensePrefix: 'DETAIL' });
    const license = await t.createLicense({
      product: product._id,
      customer: customer._id,
      licenseType: 'consumption',
      credits: 50,
      ipLimit: 3,
      hwidLimit: 2,
    });
    await t.http.post('/api/license/validate').send({ key: license.key, ip: '203.0.113.9', hwid: 'box-9' }).expect(200);
    await t.database.pool.query(
      `INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at) VALUES ($1, '203.0.113.9', 'box-9', 'blocked', 'Hardware limit reached', $2)`,
      [license._id, new Date(Date.now() - 3 * day)],
    );

    const html = await get(`/licenses/${license._id}`);
    const document = documentOf(html);
    const text = textOf(html);
    for (const part of [
      license.key,
      'Detail Product',
      'Erin Detail',
      'erin@example.com',
      'consumption',
      'Credits left',
      '49',
      '203.0.113.9',
      'box-9',
      license._id,
    ]) {
      expect(text).toContain(part);
    }
    const fact = (label: string) =>
      [...document.querySelectorAll('.fact')]
        .find((element) => element.querySelector('dt')?.textContent === label)
        ?.querySelector('dd')
        ?.textContent?.replace(/\s+/g, ' ')
        .trim();
    expect(fact('IP limit')).toBe('3 (1 / 3 in use)');
    expect(fact('State')).toBe('active');
    const chart = document.querySelector('svg#usage-chart');
    expect(chart?.getAttribute('role')).toBe('img');
    expect(chart?.querySelector('title')?.textContent).toBe('Validations per day, last 30 days');
    expect(document.querySelector('[data-total="success"]')?.textContent).toBe('1');
    expect(document.querySelector('[data-total="failure"]')?.textContent).toBe('1');
    expect(document.querySelectorAll('tr[data-record]')).toHaveLength(2);
    expect(document.querySelector('tr[data-audit] td[data-label="Action"]')?.textContent).toBe('create');
    expect(document.querySelector('a[href$="/file"]')?.getAttribute('href')).toBe(`/api/licenses/${license._id}/file`);
    for (const button of ['Suspend', 'Revoke', 'Rotate key', 'Clear restrictions']) {
      expect([...document.querySelectorAll('form button')].map((element) => element.textContent)).toContain(button);
    }
    // Every form field is labelled, every write form carries the CSRF token.
    for (const input of document.querySelectorAll('form input:not([type="hidden"]), form select, form textarea'))
      expect(input.closest('label')).toBeTruthy();
    for (const form of document.querySelectorAll('form[method="post"]'))
      expect(form.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value).toBe(admin.csrfToken);

    await get('/licenses/00000000-0000-4000-8000-000000000000', admin, 404);
    await get('/licenses/not-an-id', admin, 404);
  });

  it('suspends with the form (reason and CSRF token): state, reason and audit change as through the API, then reactivates', async () => {
    const license = await t.createLicense();
    const page = await get(`/licenses/${license._id}`);
    const res = await t.http
      .post(`/licenses/${license._id}/suspend`)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: formToken(page), reason: 'Chargeback pending' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/licenses/${license._id}`);

    const detail = await t.context.services.licenses.detail(license._id);
    expect(detail.suspended).toBe(true);
    expect(detail.suspendReason).toBe('Chargeback pending');
    const { rows } = await t.database.pool.query<{ action: string; user_id: string }>(
      `SELECT action, user_id FROM audit_logs WHERE resource_type = 'license' AND resource_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [license._id],
    );
    expect(rows[0]).toEqual({ action: 'suspend', user_id: 'admin' });

    const after = await get(`/licenses/${license._id}`);
    const document = documentOf(after);
    expect(document.querySelector('.alert-success')?.textContent).toBe('License suspended.');
    expect(document.querySelector('tr[data-audit] td[data-label="Action"]')?.textContent).toBe('suspend');
    expect(document.querySelector('[data-state]')?.textContent).toBe('suspended');
    // The message is shown once.
    expect(documentOf(await get(`/licenses/${license._id}`)).querySelector('.alert-success')).toBeNull();

    // Without a reason: nothing changes, the page says why.
    const other = await t.createLicense();
    await t.http
      .post(`/licenses/${other._id}/suspend`)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken, reason: '  ' })
      .expect(303);
    expect((await t.context.services.licenses.detail(other._id)).suspended).toBe(false);
    expect(textOf(await get(`/licenses/${other._id}`))).toContain('Give a reason to suspend the license.');

    await t.http
      .post(`/licenses/${license._id}/reactivate`)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken })
      .expect(303);
    expect((await t.context.services.licenses.detail(license._id)).suspended).toBe(false);
  });

  it('revokes, rotates the key and clears restrictions through the forms; a revoked license is not reactivated', async () => {
    const license = await t.createLicense({ ipLimit: 5 });
    await t.http.post('/api/license/validate').send({ key: license.key, ip: '198.51.100.4' }).expect(200);
    const post = (action: string, fields: Record<string, string> = {}) =>
      t.http
        .post(`/licenses/${license._id}/${action}`)
        .set('Cookie', admin.cookie)
        .type('form')
        .send({ _csrf: admin.csrfToken, ...fields })
        .expect(303);

    await post('clear');
    expect((await t.context.services.licenses.detail(license._id)).usedIps).toEqual([]);
    await post('rotate');
    const rotated = await t.context.services.licenses.detail(license._id);
    expect(rotated.key).not.toBe(license.key);
    await post('revoke', { reason: 'Fraud' });
    expect((await t.context.services.licenses.detail(license._id)).revoked).toBe(true);
    await post('reactivate');
    expect(textOf(await get(`/licenses/${license._id}`))).toContain('revoked');
    expect((await t.context.services.licenses.detail(license._id)).suspended).toBe(false);
    const { rows } = await t.database.pool.query<{ action: string }>(
      `SELECT action FROM audit_logs WHERE resource_type = 'license' AND resource_id = $1 AND success ORDER BY created_at`,
      [license._id],
    );
    expect(rows.map((row) => row.action)).toEqual(['create', 'update', 'update', 'revoke']);
    // The refused reactivation is audited as a failure, as through the API.
    const failed = await t.database.pool.query<{ action: string; user_id: string }>(
      `SELECT action, user_id FROM audit_logs WHERE resource_type = 'license' AND resource_id = $1 AND NOT success`,
      [license._id],
    );
    expect(failed.rows).toEqual([{ action: 'activate', user_id: 'admin' }]);
  });

  it('refuses a form post without the CSRF token, and non-admins', async () => {
    const license = await t.createLicense();
    const noToken = await t.http
      .post(`/licenses/${license._id}/suspend`)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ reason: 'x' });
    expect(noToken.status).toBe(403);
    const wrong = await t.http
      .post(`/licenses/${license._id}/suspend`)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: 'forged', reason: 'x' });
    expect(wrong.status).toBe(403);
    expect((await t.context.services.licenses.detail(license._id)).suspended).toBe(false);

    const { session: customer } = await t.customer();
    // A customer is sent to their portal (customer-console-addresses.test.ts), never shown the console.
    await get('/licenses', customer, 303);
    await get(`/licenses/${license._id}`, customer, 303);
    const refused = await t.http
      .post(`/licenses/${license._id}/suspend`)
      .set(customer.headers)
      .type('form')
      .send({ _csrf: customer.csrfToken, reason: 'x' });
    expect(refused.status).toBe(403);
    expect((await t.context.services.licenses.detail(license._id)).suspended).toBe(false);

    const visitor = await t.http.get('/licenses');
    expect(visitor.status).toBe(303);
    expect(visitor.headers.location).toBe('/?returnTo=%2Flicenses');
    // The sign-in page sends the visitor to the provider with the page asked for, and back to it.
    const signInPage = await t.http.get(visitor.headers.location!).expect(200);
    expect(signInPage.text).toContain('href="/auth/idp?returnTo=%2Flicenses"');
    const offSite = await t.http.get('/?returnTo=%2F%2Fevil.example').expect(200);
    expect(offSite.text).toContain('href="/auth/idp"');
    // Through the provider and back: the admin lands on /licenses; another origin falls back to /.
    expect((await walkSignIn(t.baseUrl, testAdminId, {}, '/licenses')).endedAt.pathname).toBe('/licenses');
    expect((await walkSignIn(t.baseUrl, testAdminId, {}, '//evil.example/x')).endedAt.href).toBe(`${t.baseUrl}/`);
  });

  it('escapes hostile text everywhere it shows', async () => {
    const product = await t.createProduct({ name: HOSTILE, description: HOSTILE });
    const customer = await t.createCustomer({ name: HOSTILE });
    const license = await t.createLicense({
      product: product._id,
      customer: customer._id,
      metadata: { note: HOSTILE },
    });
    await t.http
      .post(`/licenses/${license._id}/suspend`)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken, reason: HOSTILE })
      .expect(303);
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: HOSTILE });
    for (const path of [
      `/licenses/${license._id}`,
      `/licenses?customer=${customer._id}`,
      `/licenses?search=${encodeURIComponent(HOSTILE)}`,
    ]) {
      const html = await get(path);
      const document = documentOf(html);
      expect(document.querySelectorAll('script:not([src]):not([type="application/json"])'), path).toHaveLength(0);
      expect(document.querySelectorAll('img[onerror]'), path).toHaveLength(0);
    }
    expect(textOf(await get(`/licenses/${license._id}`))).toContain(HOSTILE);
  });

  it('creates a license with the new-license form', async () => {
    const product = await t.createProduct({ name: 'Form Product' });
    const customer = await t.createCustomer({ name: 'Form Customer' });
    const form = documentOf(await get('/licenses/new'));
    for (const label of [
      'Product',
      'Customer',
      'Type',
      'Expiry date (UTC)',
      'IP limit',
      'Hardware limit',
      'Credits (consumption licenses)',
    ]) {
      expect(
        [...form.querySelectorAll('label .label')].map((element) => element.textContent),
        label,
      ).toContain(label);
    }
    const missing = await t.http
      .post('/licenses')
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken, product: product._id, licenseType: 'consumption', ipLimit: '0', hwidLimit: '0' });
    expect(missing.status).toBe(400);
    expect(textOf(missing.text)).toContain('Required for consumption licenses');

    const created = await t.http.post('/licenses').set('Cookie', admin.cookie).type('form').send({
      _csrf: admin.csrfToken,
      product: product._id,
      customer: customer._id,
      licenseType: 'consumption',
      expiresAt: '2099-12-31',
      ipLimit: '2',
      hwidLimit: '1',
      credits: '100',
    });
    expect(created.status).toBe(303);
    const location = String(created.headers.location);
    const id = location.replace('/licenses/', '');
    const license = await t.context.services.licenses.detail(id);
    expect(license).toMatchObject({
      licenseType: 'consumption',
      ipLimit: 2,
      hwidLimit: 1,
      expiresAt: '2099-12-31T23:59:59.000Z',
      credits: { total: 100 },
    });
    expect(license.customer?._id).toBe(customer._id);
    expect(textOf(await get(location))).toContain(`License ${license.key} created.`);
  });
});
