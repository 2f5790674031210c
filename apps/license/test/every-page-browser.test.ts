import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { testDatabaseBackend } from '@app/db/testing';
import { chromiumForTests } from '@app/http/testing';
import { capture, pageAs } from './browser.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

const executablePath = chromiumForTests('every license page at 390 px');

/** Who sees a page, and the address it is opened at (its path parameters filled with real ids). */
interface Visit {
  path: string;
  as: 'admin' | 'customer' | 'visitor';
  name: string;
}

/**
 * Every page the service declares (GET routes tagged `pages` in its OpenAPI document), opened in
 * Chromium at 1280 and 390 px: a screenshot of each, and none may be wider than the phone. A
 * page added later is visited without touching this test, once its path parameter has a sample
 * below; until then the test fails and names it.
 */
describe.skipIf(!executablePath)(`every license page at 1280 and 390 px (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: Session;
  let customer: Session;
  /** A sample id for each page address with a parameter, by the address as the document spells it. */
  let samples: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    const product = await t.createProduct({ name: 'Acme Studio Professional Edition', licensePrefix: 'STUDIO' });
    const signedIn = await t.customer({
      name: 'Zoë Ångström-Weißenberger Industries',
      email: 'zoe.angstrom@example.com',
    });
    customer = signedIn.session;
    const license = await t.createLicense({
      product: product._id,
      customer: signedIn.customer._id,
      ipLimit: 3,
      hwidLimit: 1,
    });
    await t.http
      .post('/api/license/validate')
      .send({ key: license.key, ip: '198.51.100.7', hwid: 'workstation-0001' })
      .expect(200);
    // A failed validation too, so the charts have both series.
    await t.http
      .post('/api/license/validate')
      .send({ key: license.key, ip: '198.51.100.8', hwid: 'a-third-device' })
      .expect((response) => expect(response.status).toBeGreaterThanOrEqual(400));
    const audit = await t.http.get('/api/audit?limit=1').set(admin.headers).expect(200);
    const automation = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'Suspend abusive licenses',
        trigger: { event: 'violation_threshold', threshold: 5 },
        actions: [{ type: 'suspend_license', params: {} }],
      })
      .expect(201);
    const endpoint = await t.http
      .post('/api/webhooks/endpoints')
      .set(admin.headers)
      .send({ url: 'https://93.184.215.14/hooks' })
      .expect(201);
    const entitlement = await t.http
      .post('/api/entitlements')
      .set(admin.headers)
      .send({ code: 'SSO', name: 'Single sign-on' })
      .expect(201);
    const policy = await t.http
      .post('/api/policies')
      .set(admin.headers)
      .send({
        productId: product._id,
        name: 'Studio Professional, yearly',
        durationDays: 365,
        hwidLimit: 3,
        entitlements: ['SSO'],
      })
      .expect(201);
    samples = {
      '/webhooks/endpoints/{id}/secret': endpoint.body.endpoint._id,
      '/automations/{id}': automation.body.action._id,
      '/automations/{id}/edit': automation.body.action._id,
      '/products/{id}': product._id,
      '/products/{productId}/releases': product._id,
      '/policies/{id}': policy.body.policy._id,
      '/entitlements/{id}': entitlement.body.entitlement._id,
      '/customers/{id}': signedIn.customer._id,
      '/licenses/{id}': license._id,
      '/my-licenses/{licenseId}': license._id,
      '/audit-log/{id}': audit.body.auditLogs[0]._id,
    };
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The declared pages, each as the people who use it see it. */
  function visits(): { visits: Visit[]; unfilled: string[] } {
    // Pages are internal to the API description: the inventory lists them, GET /openapi.json does not.
    const document = t.openApiDocument() as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const out: Visit[] = [];
    const unfilled: string[] = [];
    for (const [declared, operations] of Object.entries(document.paths)) {
      if (!operations.get?.tags?.includes('pages') || declared === '/favicon.ico') continue;
      let path = declared;
      if (declared.includes('{')) {
        const sample = samples[declared];
        if (!sample) {
          unfilled.push(declared);
          continue;
        }
        path = declared.replace(/\{[^}]+\}/, sample);
      }
      const name =
        declared === '/'
          ? 'home'
          : declared
              .slice(1)
              .replace(/\{[^}]+\}/g, 'one')
              .replace(/[^a-z0-9]+/gi, '-');
      if (declared === '/') {
        out.push(
          { path, as: 'visitor', name: 'page-sign-in' },
          { path, as: 'admin', name: 'page-dashboard' },
          { path, as: 'customer', name: 'page-customer-home' },
        );
      } else {
        out.push({ path, as: declared.startsWith('/my-') ? 'customer' : 'admin', name: `page-${name}` });
      }
    }
    return { visits: out, unfilled };
  }

  it('shows every declared page without sideways scrolling at 390 px, and writes its screenshots', async () => {
    const { visits: pages, unfilled } = visits();
    expect(unfilled, 'pages whose path parameter has no sample in this test').toEqual([]);
    expect(pages.length).toBeGreaterThanOrEqual(10);
    const widths: Record<string, number> = {};
    const statuses: Record<string, number> = {};
    for (const visit of pages) {
      const page = await pageAs(
        browser,
        t.baseUrl,
        visit.as === 'admin' ? admin : visit.as === 'customer' ? customer : undefined,
      );
      const response = await page.goto(`${t.baseUrl}${visit.path}`);
      statuses[`${visit.as} ${visit.path}`] = response?.status() ?? 0;
      widths[`${visit.as} ${visit.path}`] = await capture(page, visit.name);
      await page.context().close();
    }
    expect(Object.entries(statuses).filter(([, status]) => status !== 200)).toEqual([]);
    expect(Object.entries(widths).filter(([, width]) => width > 390)).toEqual([]);
  }, 600_000);

  it('measures overflow: the same check fails on a page with something wider than the phone', async () => {
    const page = await pageAs(browser, t.baseUrl, admin);
    await page.goto(`${t.baseUrl}/products`);
    await page.evaluate(() => {
      const wide = document.createElement('pre');
      wide.textContent = 'x'.repeat(200);
      document.querySelector('main')!.append(wide);
    });
    expect(await capture(page, 'page-overflow-check')).toBeGreaterThan(390);
    await page.context().close();
  });
});
