import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

// Errors become HTTP in one place (the error handler): programs get the JSON the spec defines,
// a person whose browser navigates somewhere that fails gets a finished page with a way back.

/** What Chromium sends when following a link (a download link included). */
const navigation = {
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'Sec-Fetch-Mode': 'navigate',
  'Sec-Fetch-Dest': 'document',
};

let t: TestApp;
let withoutSignIn: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  withoutSignIn = await buildTestApp({ withoutSignIn: true, database: t.database });
});
afterAll(async () => {
  await withoutSignIn?.close();
  await t?.close();
});

describe('error answers for browsers and for programs', () => {
  it('a browser following "Download license file" of a suspended license reads a page with the reason and a link back', async () => {
    const customer = await t.createCustomer({ userId: 'error-page-customer' });
    const license = await t.createLicense({ customer: customer._id });
    const admin = await t.admin();
    await t.http
      .post(`/api/licenses/${license._id}/suspend`)
      .set(admin.headers)
      .send({ reason: 'Invoice unpaid' })
      .expect(200);
    const session = await t.signIn('error-page-customer');
    const path = `/api/customer/licenses/${license._id}/file`;

    const page = await t.http
      .get(path)
      .set('Cookie', session.cookie)
      .set(navigation)
      .set('Referer', `${t.baseUrl}/licenses/${license._id}`);
    expect(page.status).toBe(403);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<h1>Not allowed</h1>');
    expect(page.text).toContain('License suspended');
    expect(page.text).toContain('Reason: Invoice unpaid');
    expect(page.text).toContain(`href="/licenses/${license._id}">Go back</a>`);
    expect(page.text).not.toContain('"success"');

    // The same address from a program: JSON, whatever its Accept.
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2',
    ]) {
      const request = t.http.get(path).set('Cookie', session.cookie);
      const res = await (accept ? request.set('Accept', accept) : request);
      expect(res.status, accept).toBe(403);
      expect(res.body, accept).toEqual({ success: false, error: 'License suspended', reason: 'Invoice unpaid' });
    }
  });

  it('GET /auth/idp without OAuth settings: a page naming the variables to a browser, the JSON 503 to curl', async () => {
    const page = await withoutSignIn.http.get('/auth/idp').set(navigation);
    expect(page.status).toBe(503);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<h1>Service unavailable</h1>');
    expect(page.text).toContain('Sign-in is not configured');
    for (const variable of ['OAUTH_AUTHORIZATION_URL', 'OAUTH_CLIENT_SECRET']) expect(page.text).toContain(variable);
    expect(page.text).toContain('href="/">Go to the start page</a>');

    const curl = await withoutSignIn.http.get('/auth/idp').set('Accept', '*/*');
    expect(curl.status).toBe(503);
    expect(curl.body).toMatchObject({
      success: false,
      error: expect.stringContaining('Sign-in is not configured'),
      variables: expect.any(Array),
    });
    const json = await withoutSignIn.http.get('/auth/idp').set('Accept', 'application/json');
    expect(json.headers['content-type']).toMatch(/json/);
  });

  it("keeps the spec's JSON for API calls, even from a browser page (fetch) or with text/html in Accept", async () => {
    const unauthorized = await t.http.get('/api/products').set('Accept', 'text/html,*/*;q=0.8');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toEqual({ success: false, error: 'Unauthorized' });
    const validate = await t.http.post('/api/license/validate').set(navigation).send({ key: 'NO-SUCH-KEY' });
    expect(validate.status).toBe(400);
    expect(validate.body).toEqual({
      success: false,
      valid: false,
      error: 'License not found',
      request: { key: 'NO-SUCH-KEY', hwid: null, entitlements: null, nonce: null },
      issuedAt: expect.any(String),
    });
    const missing = await t.http.get('/api/no-such-thing');
    expect(missing.body).toMatchObject({ success: false, error: 'Not found' });
  });

  it('never writes the message as markup', async () => {
    const page = await t.http
      .get('/api/customer/licenses/x/file')
      .set(navigation)
      .set('Referer', 'https://elsewhere.example/<script>');
    expect(page.status).toBe(401);
    expect(page.text).toContain('href="/">Go to the start page</a>');
    expect(page.text).not.toContain('<script>');
  });
});
