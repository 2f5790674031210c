import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { documentOf, textOf } from '@app/ui/testing/dom';
import { buildTestApp, type TestApp } from './helpers.js';

// Key sharing (decisions.md, Wave 4, "License service: insight"): a license's or policy's
// sharingAddressLimit; more distinct addresses in a day than that raises
// LICENSE_SHARING_SUSPECTED once per license per day and flags the license in lists and on its page.

let t: TestApp;
const announced: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  t = await buildTestApp();
  t.context.events.on('LICENSE_SHARING_SUSPECTED', (data) => {
    announced.push(data);
  });
});
afterAll(async () => {
  await t?.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const validate = (key: string, ip: string) =>
  fetch(`${t.baseUrl}/api/license/validate`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ key, ip }),
  }).then((res) => res.status);
const admin = async () => (await t.admin()).headers;

describe(`key sharing (${testDatabaseBackend()})`, () => {
  it("flags a license over its policy's limit once a day, announces it once, and shows the flag", async () => {
    const product = await t.createProduct();
    const policy = await t.http
      .post('/api/policies')
      .set(await admin())
      .send({ productId: product._id, name: 'Shared', sharingAddressLimit: 3 });
    expect(policy.status).toBe(201);
    expect(policy.body.policy.sharingAddressLimit).toBe(3);
    const shared = await t.createLicense({ policyId: policy.body.policy._id });
    const calm = await t.createLicense({ policyId: policy.body.policy._id });
    const own = await t.createLicense({ policyId: policy.body.policy._id, sharingAddressLimit: 10 });
    expect(shared.sharingAddressLimit).toBeNull();
    expect(shared.effectiveSharingAddressLimit).toBe(3);

    // Three addresses are within the limit: nothing happens.
    await Promise.all(['10.1.0.1', '10.1.0.2', '10.1.0.3'].map((ip) => validate(shared.key, ip)));
    expect(await t.context.services.licenses.announceSharingSuspicions()).toBe(0);
    // Five new addresses at once (and the license's own higher limit elsewhere): one flag.
    await Promise.all(
      ['10.1.0.4', '10.1.0.5', '10.1.0.6', '10.1.0.7', '10.1.0.8'].map((ip) => validate(shared.key, ip)),
    );
    await Promise.all(['10.2.0.1', '10.2.0.2', '10.2.0.3', '10.2.0.4', '10.2.0.5'].map((ip) => validate(own.key, ip)));
    await validate(calm.key, '10.3.0.1');
    expect(await t.context.services.licenses.announceSharingSuspicions()).toBe(1);
    expect(announced).toEqual([
      {
        licenseId: shared._id,
        licenseKey: shared.key,
        customerId: null,
        productId: product._id,
        day: today(),
        // The day's distinct addresses when the limit was passed: a batch may add several at once.
        addresses: expect.any(Number),
        sharingAddressLimit: 3,
      },
    ]);
    expect(announced[0]!.addresses).toBeGreaterThan(3);
    // More addresses the same day: no second announcement.
    await validate(shared.key, '10.1.0.9');
    expect(await t.context.services.licenses.announceSharingSuspicions()).toBe(0);
    expect(announced).toHaveLength(1);

    const page = await t.http.get(`/api/licenses/${shared._id}`).set(await admin());
    expect(page.body.license.sharingSuspected).toBe(true);
    const list = await t.http.get(`/api/licenses?product=${product._id}`).set(await admin());
    const flags = Object.fromEntries(
      list.body.licenses.map((license: { _id: string; sharingSuspected: boolean }) => [
        license._id,
        license.sharingSuspected,
      ]),
    );
    expect(flags).toEqual({ [shared._id]: true, [calm._id]: false, [own._id]: false });
  });

  it("a license's own limit flags it without a policy; refuses limits below 1 with 400", async () => {
    const license = await t.createLicense({ sharingAddressLimit: 1 });
    await validate(license.key, '10.4.0.1');
    await validate(license.key, '10.4.0.2');
    expect(await t.context.services.licenses.announceSharingSuspicions()).toBe(1);
    expect(announced.at(-1)).toMatchObject({ licenseId: license._id, addresses: 2, sharingAddressLimit: 1 });

    const cleared = await t.http
      .put(`/api/licenses/${license._id}`)
      .set(await admin())
      .send({ sharingAddressLimit: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.license.sharingAddressLimit).toBeNull();
    const refused = await t.http
      .put(`/api/licenses/${license._id}`)
      .set(await admin())
      .send({ sharingAddressLimit: 0 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Validation failed');
    const product = await t.createProduct();
    const policy = await t.http
      .post('/api/policies')
      .set(await admin())
      .send({ productId: product._id, name: 'Bad', sharingAddressLimit: -1 });
    expect(policy.status).toBe(400);
  });
});

describe(`key sharing in the console (${testDatabaseBackend()})`, () => {
  it('shows the flag in the list and on the license page, and not on others', async () => {
    const product = await t.createProduct();
    const shared = await t.createLicense({ product: product._id, sharingAddressLimit: 1 });
    const calm = await t.createLicense({ product: product._id, sharingAddressLimit: 5 });
    await validate(shared.key, '10.5.0.1');
    await validate(shared.key, '10.5.0.2');
    await validate(calm.key, '10.5.0.3');
    // Flags are raised when the validations are folded into the rollups (each second in a real start).
    await t.context.services.analytics.foldUsage();
    const list = await t.http.get(`/licenses?product=${product._id}`).set(await admin());
    expect(list.status).toBe(200);
    const rows = [...list.text.matchAll(/<tr data-license="([^"]+)">([\s\S]*?)<\/tr>/g)].map(([, id, row]) => [
      id,
      row!.includes('data-sharing'),
    ]);
    expect(Object.fromEntries(rows)).toEqual({ [shared._id]: true, [calm._id]: false });
    const page = await t.http.get(`/licenses/${shared._id}`).set(await admin());
    expect(page.text).toContain('sharing suspected');
    expect(page.text).toContain('1 address a day');
    expect((await t.http.get(`/licenses/${calm._id}`).set(await admin())).text).not.toContain('data-sharing');
  });
});

describe(`the sharing limit on the console's forms (${testDatabaseBackend()})`, () => {
  const LABEL = 'Sharing limit: addresses a day';
  const labels = (html: string) =>
    [...documentOf(html).querySelectorAll('label .label')].map((element) => element.textContent);
  let session: Awaited<ReturnType<TestApp['admin']>>;
  beforeAll(async () => {
    session = await t.admin();
  });
  const form = (path: string, fields: Record<string, string>) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send({ _csrf: session.csrfToken, ...fields });
  const page = async (path: string) => (await t.http.get(path).set('Cookie', session.cookie).expect(200)).text;

  it('sets it on a policy, refuses what is not 1 to 1,000,000 in the form, and shows it back', async () => {
    const product = await t.createProduct();
    expect(labels(await page('/policies'))).toContain(LABEL);
    for (const wrong of ['0', '1000001', '2.5', 'many']) {
      const refused = await form('/policies', { productId: product._id, name: 'Shared', sharingAddressLimit: wrong });
      expect(refused.status, wrong).toBe(400);
      expect(textOf(refused.text)).toContain(
        'Sharing limit: a whole number of addresses from 1 to 1,000,000, or empty.',
      );
      expect(documentOf(refused.text).querySelector('input[name="sharingAddressLimit"]')?.getAttribute('value')).toBe(
        wrong,
      );
    }
    const created = await form('/policies', { productId: product._id, name: 'Shared', sharingAddressLimit: '25' });
    expect(created.status).toBe(303);
    const detail = documentOf(await page(String(created.headers.location)));
    expect(detail.querySelector('[data-sharing-limit]')?.textContent).toBe('25 addresses a day');
    expect(detail.querySelector<HTMLInputElement>('input[name="sharingAddressLimit"]')?.value).toBe('25');
    const policyId = String(created.headers.location).split('/').pop()!;
    // Emptied on the edit form: no limit.
    await form(`/policies/${policyId}`, { productId: product._id, name: 'Shared', sharingAddressLimit: '' }).expect(
      303,
    );
    const cleared = await t.http.get(`/api/policies/${policyId}`).set(await admin());
    expect(cleared.body.policy.sharingAddressLimit).toBeNull();
  });

  it('sets it on a new license and from the license page; a wrong one says so and changes nothing', async () => {
    const product = await t.createProduct();
    expect(labels(await page('/licenses/new'))).toContain(LABEL);
    const refused = await form('/licenses', {
      product: product._id,
      licenseType: 'fixed',
      sharingAddressLimit: '0',
    });
    expect(refused.status).toBe(400);
    expect(textOf(refused.text)).toContain('Check these fields: sharingAddressLimit.');
    const created = await form('/licenses', { product: product._id, licenseType: 'fixed', sharingAddressLimit: '4' });
    expect(created.status).toBe(303);
    const id = String(created.headers.location).replace('/licenses/', '');
    expect((await t.context.services.licenses.detail(id)).sharingAddressLimit).toBe(4);
    const shown = documentOf(await page(`/licenses/${id}`));
    expect(shown.querySelector<HTMLInputElement>('#sharing input[name="sharingAddressLimit"]')?.value).toBe('4');
    expect(shown.body.textContent).toContain('4 addresses a day');

    await form(`/licenses/${id}/sharing`, { sharingAddressLimit: '-3' }).expect(303);
    expect(textOf(await page(`/licenses/${id}`))).toContain(
      'Check these fields: sharingAddressLimit. Sharing limit: a whole number of addresses from 1 to 1,000,000, or empty.',
    );
    expect((await t.context.services.licenses.detail(id)).sharingAddressLimit).toBe(4);
    await form(`/licenses/${id}/sharing`, { sharingAddressLimit: '1' }).expect(303);
    expect(textOf(await page(`/licenses/${id}`))).toContain(
      'Sharing limit saved: more than 1 address a day flags the license.',
    );
    expect((await t.context.services.licenses.detail(id)).sharingAddressLimit).toBe(1);
    await form(`/licenses/${id}/sharing`, { sharingAddressLimit: '' }).expect(303);
    expect((await t.context.services.licenses.detail(id)).sharingAddressLimit).toBeNull();
    // Without the CSRF token: refused.
    const forged = await t.http
      .post(`/licenses/${id}/sharing`)
      .set('Cookie', (await t.admin()).cookie)
      .type('form')
      .send({ sharingAddressLimit: '9' });
    expect(forged.status).toBe(403);
  });
});
