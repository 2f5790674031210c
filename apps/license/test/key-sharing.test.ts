import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
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
