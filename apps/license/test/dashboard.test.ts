import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticator } from 'otplib';
import { buildTestApp, systemActor, testAdminId, type Session, type TestApp } from './helpers.js';

/** The number shown in a headline card (`data-stat="<id>"`) of the admin page. */
function stat(page: string, id: string): number | undefined {
  const card =
    new RegExp(`data-stat="${id}"><span class="stat-value">([\\d,]+)</span>`).exec(page) ??
    new RegExp(`<strong data-stat="${id}">([\\d,]+)</strong>`).exec(page);
  return card ? Number(card[1]!.replaceAll(',', '')) : undefined;
}

/** The visible text of a page, tags removed and spaces collapsed. */
const text = (page: string) => page.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

describe('dashboard page at /', () => {
  let t: TestApp;
  let admin: Session;
  const page = async (session?: Session, path = '/') => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    return res.text;
  };

  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('with no licenses yet, points the admin to the new-license form (runs first, on the empty database)', async () => {
    const html = await page(admin);
    expect(text(html)).toContain('No licenses yet. Create the first one; it appears here.');
    expect(html).toContain('<a class="button" href="/licenses/new">New license</a>');
    expect(text(html)).not.toContain('most recent of');
  });

  it('shows an admin the counts of the data and the validations of the last 24 hours, and the panic state', async () => {
    const [first, second] = [await t.createProduct(), await t.createProduct()];
    const customer = await t.createCustomer();
    await t.createCustomer();
    const limited = await t.createLicense({ product: first._id, customer: customer._id, hwidLimit: 1 });
    await t.createLicense({ product: second._id, expiresAt: new Date(Date.now() + 86_400_000) });
    const suspended = await t.createLicense({ product: first._id });
    await t.context.services.licenses.suspend(systemActor, suspended._id, 'testing');
    const expired = await t.createLicense({ product: second._id, expiresAt: new Date(Date.now() - 86_400_000) });
    const revoked = await t.createLicense({ product: second._id });
    await t.context.services.licenses.revoke(systemActor, revoked._id, 'testing');

    const validate = (body: object) => t.http.post('/api/license/validate').send(body);
    expect((await validate({ key: limited.key, hwid: 'machine-a' })).status).toBe(200);
    expect((await validate({ key: limited.key, hwid: 'machine-a' })).status).toBe(200);
    expect((await validate({ key: limited.key, hwid: 'machine-b' })).status).toBe(403); // blocked: HWID limit
    expect((await validate({ key: 'TEST-unknown' })).status).toBe(400); // invalid
    expect((await validate({ key: expired.key })).status).toBe(403); // invalid: expired
    // A validation of two days ago is outside the last 24 hours.
    await t.database.pool.query(
      `INSERT INTO usage_records (license_id, status, created_at) VALUES ($1, 'success', now() - interval '2 days')`,
      [limited._id],
    );

    const html = await page(admin);
    expect(text(html)).toContain('Admin dashboard');
    expect({
      products: stat(html, 'products'),
      customers: stat(html, 'customers'),
      total: stat(html, 'licenses-total'),
      active: stat(html, 'licenses-active'),
      suspended: stat(html, 'licenses-suspended'),
      expired: stat(html, 'licenses-expired'),
      validations: stat(html, 'validations'),
      success: stat(html, 'validations-success'),
      blocked: stat(html, 'validations-blocked'),
      invalid: stat(html, 'validations-invalid'),
    }).toEqual({
      products: 2,
      customers: 2,
      total: 5,
      active: 2,
      suspended: 1,
      expired: 1,
      validations: 5,
      success: 2,
      blocked: 1,
      invalid: 2,
    });
    expect(html).toContain('data-panic-state="off"');
    expect(html).toContain('id="panic-toggle"');
    for (const href of ['/api/export/licenses/csv', '/api/export/licenses/pdf', '/auth/logout'])
      expect(html).toContain(`href="${href}"`);
    for (const license of [limited, suspended, expired, revoked]) expect(html).toContain(license.key);
    expect(html).toContain('/api/admin/panic');
    expect(html).toContain('<script src="/dashboard-assets/dashboard.js" defer></script>');
  });

  it('lists the 20 most recent licenses, newest first', async () => {
    const product = await t.createProduct();
    const created = [];
    for (let i = 0; i < 22; i++) created.push(await t.createLicense({ product: product._id }));
    const html = await page(admin);
    const keys = [...html.matchAll(/<code class="key">([^<]+)<\/code>/g)].map((match) => match[1]);
    expect(keys).toHaveLength(20);
    expect(keys[0]).toBe(created.at(-1)!.key);
    expect(keys).not.toContain(created[0]!.key);
  });

  it('shows a customer only their own licenses, with usage against the limits and credits', async () => {
    const carol = await t.createCustomer({ name: 'Carol', userId: 'carol' });
    const dave = await t.createCustomer({ name: 'Dave', userId: 'dave' });
    const own = await t.createLicense({ customer: carol._id, ipLimit: 5, hwidLimit: 0 });
    const credits = await t.createLicense({ customer: carol._id, licenseType: 'consumption', credits: 10 });
    const other = await t.createLicense({ customer: dave._id });
    await t.http.post('/api/license/validate').send({ key: credits.key, hwid: 'box-1' });

    const html = await page(await t.signIn('carol'));
    expect(text(html)).toContain('Your licenses');
    expect(html).toContain(own.key);
    expect(html).toContain(credits.key);
    expect(html).not.toContain(other.key);
    expect(text(html)).toContain('9 left of 10');
    expect(text(html)).toContain('0 / 5');
    // Nothing admin-only.
    for (const adminOnly of ['/api/export', 'panic-toggle', 'data-stat', '/api/admin'])
      expect(html).not.toContain(adminOnly);
  });

  it('tells a signed-in user who is neither admin nor customer that the account has no access', async () => {
    const html = await page(await t.signIn('stranger'));
    expect(text(html)).toContain('You are signed in as stranger , but this account has no access.');
    expect(text(html)).toContain("Ask your vendor's administrator to link your account");
    expect(html).toContain('href="/auth/logout"');
    expect(html).not.toContain('data-stat');
  });

  it('escapes HTML in product names and license keys', async () => {
    const product = await t.createProduct({ name: '<script>alert(1)</script>', licensePrefix: '<b>K</b>' });
    const license = await t.createLicense({ product: product._id });
    expect(license.key.startsWith('<b>K</b>-')).toBe(true);
    const html = await page(admin);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain(license.key);
    expect(html).toContain(license.key.replace('<b>K</b>', '&lt;b&gt;K&lt;/b&gt;'));
  });

  it('stays reachable in panic mode: the admin sees it on, the customer part says the service is unavailable', async () => {
    const erin = await t.createCustomer({ userId: 'erin' });
    const license = await t.createLicense({ customer: erin._id });
    const erinSession = await t.signIn('erin');
    await t.settings.update({ security: { panicMode: true } });
    try {
      expect(text(await page())).toContain('Sign in');
      const adminHtml = await page(admin);
      expect(adminHtml).toContain('data-panic-state="on"');
      expect(adminHtml).toContain('Turn panic mode off');
      const customerHtml = await page(erinSession);
      expect(text(customerHtml)).toContain('The service is temporarily unavailable.');
      expect(customerHtml).not.toContain(license.key);
    } finally {
      await t.settings.update({ security: { panicMode: false } });
    }
    expect(await page(erinSession)).toContain(license.key);
  });

  describe('anonymous visitors', () => {
    it('see the service name, an explanation and the sign-in link, with no inline script', async () => {
      const res = await t.http.get('/');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.text).toContain('License Service');
      expect(res.text).toContain('href="/auth/idp"');
      // Scripts are files; the kit's translated words for ui.js are a JSON data block, not code.
      expect(res.text).not.toMatch(/<script(?![^>]*\s(?:src=|type="application\/json"))/);
      expect(res.text).not.toMatch(/\son[a-z]+=/i);
      expect(res.text).not.toContain('role="alert"');
    });

    it.each([
      { code: 'auth_failed', message: 'Sign-in failed. Please try again.' },
      {
        code: 'rate_limited',
        message: 'The identity provider is rate limiting sign-ins; wait a minute and try again.',
      },
      { code: 'no_user', message: 'The identity provider returned no user.' },
    ])('see the message of ?error=$code', async ({ code, message }) => {
      const html = await page(undefined, `/?error=${code}`);
      expect(html).toContain(`<p class="alert alert-error" role="alert">${message}</p>`);
    });

    it.each(['<script>alert(1)</script>', 'constructor', '__proto__', 'toString'])(
      'never see an unknown ?error=%s',
      async (code) => {
        const html = await page(undefined, `/?error=${encodeURIComponent(code)}`);
        expect(html).not.toContain('role="alert"');
        // The language links return to this address (URL-encoded); nowhere else may it show.
        expect(html.replaceAll(/returnTo=[^"]*/g, '')).not.toContain('alert(1)');
        expect(html).not.toContain(code.startsWith('<') ? '&lt;script' : `>${code}<`);
      },
    );
  });

  it('serves the stylesheet, the script and the icon, and answers /favicon.ico with 204', async () => {
    const css = await t.http.get('/dashboard-assets/dashboard.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const js = await t.http.get('/dashboard-assets/dashboard.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.text).toContain('/api/admin/panic');
    expect(js.text).toContain('X-CSRF-Token');
    const icon = await t.http.get('/dashboard-assets/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((await t.http.get('/favicon.ico')).status).toBe(204);
    expect((await t.http.get('/dashboard-assets/missing.js')).status).toBe(404);
  });

  it('the panic switch the page calls works with the session and its CSRF token', async () => {
    const on = await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: true });
    expect(on.body).toEqual({ success: true, panicMode: true });
    expect(await page(admin)).toContain('data-panic-state="on"');
    await t.http.post('/api/admin/panic').set(admin.headers).send({ enabled: false });
    expect(await page(admin)).toContain('data-panic-state="off"');
  });
});

describe('dashboard page behind the two-factor gate', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { TWO_FACTOR_REQUIRED: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('asks an admin to set two-factor up, then to verify on a new session, before showing the counts', async () => {
    const first = await t.signIn(testAdminId);
    const setupPage = await t.http.get('/').set('Cookie', first.cookie);
    expect(setupPage.status).toBe(200);
    expect(setupPage.text).toContain('id="two-factor-setup"');
    expect(setupPage.text).not.toContain('data-stat');

    const setup = await t.http.get('/api/2fa/setup').set('Cookie', first.cookie);
    const enabled = await t.http
      .post('/api/2fa/enable')
      .set(first.headers)
      .send({ token: authenticator.generate(setup.body.secret) });
    expect(enabled.status).toBe(200);
    expect((await t.http.get('/').set('Cookie', first.cookie)).text).toContain('data-stat="products"');

    const second = await t.signIn(testAdminId);
    const verifyPage = await t.http.get('/').set('Cookie', second.cookie);
    expect(verifyPage.text).toContain('id="two-factor-verify"');
    expect(verifyPage.text).not.toContain('data-stat');
    const verified = await t.http
      .post('/api/2fa/verify')
      .set(second.headers)
      .send({ backupCode: enabled.body.backupCodes[0] });
    expect(verified.status).toBe(200);
    expect((await t.http.get('/').set('Cookie', second.cookie)).text).toContain('data-stat="products"');
  });
});
