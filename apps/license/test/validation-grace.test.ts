import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Grace and expiry strategies (decisions.md, wave 4): validation, machines, offline files, the
// admin API, the console forms and the portal, over HTTP against the real database.

let t: TestApp;
let admin: Session;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

const day = 86_400_000;
let sequence = 0;
const unique = (name: string) => `${name}-${process.pid}-${++sequence}`;
const ago = (days: number) => new Date(Date.now() - days * day);
const plus = (at: string | Date, days: number) => new Date(new Date(at).getTime() + days * day).toISOString();
const validate = (body: Record<string, unknown>) => t.http.post('/api/license/validate').send(body);
const machine = (op: string, body: Record<string, unknown>) => t.http.post(`/api/license/machines/${op}`).send(body);
const post = (path: string, body: object) => t.http.post(path).set(admin.headers).send(body);
const get = (path: string) => t.http.get(path).set('Cookie', admin.cookie);
/** A form post as a browser sends it (urlencoded), with the session's CSRF token. */
const form = (path: string, fields: Record<string, string>) =>
  t.http
    .post(path)
    .set('Cookie', admin.cookie)
    .type('form')
    .send({ _csrf: admin.csrfToken, ...fields });
const payloadOf = (file: { payload: string }) => JSON.parse(Buffer.from(file.payload, 'base64').toString('utf8'));

type Term = { expiredDaysAgo?: number; graceDays?: number; expirationStrategy?: 'revoke' | 'maintain' };
const licenseWith = (term: Term, extra: Record<string, unknown> = {}) =>
  t.createLicense({
    expiresAt: term.expiredDaysAgo === undefined ? null : ago(term.expiredDaysAgo),
    ...(term.graceDays !== undefined ? { graceDays: term.graceDays } : {}),
    ...(term.expirationStrategy ? { expirationStrategy: term.expirationStrategy } : {}),
    ...extra,
  });

describe(`validation with grace and expiry strategies (${testDatabaseBackend()})`, () => {
  // `grace`: graceEndsAt is expiresAt plus that many days; `expired`: the answer says expired: true.
  const cases: Array<{ name: string; term: Term; status: number; grace?: number; expired?: boolean }> = [
    { name: 'no grace, not expired: valid, no new fields', term: { expiredDaysAgo: -5 }, status: 200 },
    { name: 'no grace, expired: License expired as before', term: { expiredDaysAgo: 1 }, status: 403 },
    { name: 'in grace: valid with graceEndsAt', term: { expiredDaysAgo: 2, graceDays: 7 }, status: 200, grace: 7 },
    { name: 'after grace: License expired', term: { expiredDaysAgo: 8, graceDays: 7 }, status: 403 },
    {
      name: 'grace set, not expired yet: valid, no graceEndsAt',
      term: { expiredDaysAgo: -1, graceDays: 7 },
      status: 200,
    },
    {
      name: 'maintain past expiry: valid with expired: true',
      term: { expiredDaysAgo: 30, expirationStrategy: 'maintain' },
      status: 200,
      expired: true,
    },
    {
      name: 'maintain in grace: graceEndsAt first',
      term: { expiredDaysAgo: 1, graceDays: 3, expirationStrategy: 'maintain' },
      status: 200,
      grace: 3,
    },
    {
      name: 'maintain after grace: expired: true',
      term: { expiredDaysAgo: 5, graceDays: 3, expirationStrategy: 'maintain' },
      status: 200,
      expired: true,
    },
  ];

  it.each(cases)('$name', async ({ term, status, grace, expired }) => {
    const license = await licenseWith(term);
    // A new hardware id takes the locking path, a known one the common path: both answer the same.
    for (const hwid of ['new-machine', 'new-machine']) {
      const res = await validate({ key: license.key, hwid });
      expect([res.status, res.body.error]).toEqual([status, status === 200 ? undefined : 'License expired']);
      if (status !== 200) continue;
      expect(res.body.license.productId).toBe(license.product._id);
      expect(res.body.license.expiresAt).toBe(license.expiresAt);
      expect(res.body.license.graceEndsAt).toBe(grace === undefined ? undefined : plus(license.expiresAt!, grace));
      expect(res.body.license.expired).toBe(expired ? true : undefined);
      expect('graceEndsAt' in res.body.license).toBe(grace !== undefined);
      expect('expired' in res.body.license).toBe(Boolean(expired));
    }
  });

  it('a license that sets none of the new fields answers exactly as before, plus productId', async () => {
    const license = await t.createLicense({ hwidLimit: 1 });
    const res = await validate({ key: license.key, hwid: 'pc', ip: '10.9.0.1' });
    expect(res.body).toEqual({
      success: true,
      valid: true,
      license: {
        key: license.key,
        productId: license.product._id,
        active: true,
        expiresAt: null,
        ipLimit: 0,
        hwidLimit: 1,
        usedIps: ['10.9.0.1'],
        usedHwids: ['pc'],
        licenseType: 'fixed',
        entitlements: [],
        policy: null,
      },
      // What every signed answer states (wave 4): the request as read, and when.
      request: { key: license.key, hwid: 'pc', entitlements: null, nonce: null },
      issuedAt: expect.any(String),
    });
  });

  it('a child answers with its master: the master in grace gives the child its graceEndsAt', async () => {
    const master = await licenseWith({ expiredDaysAgo: 1, graceDays: 5 });
    const child = await t.createLicense({ parent: master._id, product: master.product._id });
    const res = await validate({ key: child.key });
    expect(res.status).toBe(200);
    expect(res.body.license.graceEndsAt).toBe(plus(master.expiresAt!, 5));
    expect(res.body.license.productId).toBe(master.product._id);

    const over = await licenseWith({ expiredDaysAgo: 6, graceDays: 5 });
    const overChild = await t.createLicense({ parent: over._id, product: over.product._id });
    expect((await validate({ key: overChild.key })).body.error).toBe('License expired');

    const kept = await licenseWith({ expiredDaysAgo: 6, expirationStrategy: 'maintain' });
    const keptChild = await t.createLicense({ parent: kept._id, product: kept.product._id });
    const keptAnswer = await validate({ key: keptChild.key });
    expect([keptAnswer.status, keptAnswer.body.license.expired]).toEqual([200, true]);
  });
});

describe(`machines with grace and expiry strategies (${testDatabaseBackend()})`, () => {
  const machineCases: Array<{ name: string; term: Term; status: number }> = [
    { name: 'in grace: activates', term: { expiredDaysAgo: 1, graceDays: 3 }, status: 201 },
    { name: 'after grace: License expired', term: { expiredDaysAgo: 4, graceDays: 3 }, status: 403 },
    {
      name: 'maintain past expiry: activates',
      term: { expiredDaysAgo: 40, expirationStrategy: 'maintain' },
      status: 201,
    },
  ];
  it.each(machineCases)('$name', async ({ term, status }) => {
    const license = await licenseWith(term);
    const res = await machine('activate', { key: license.key, fingerprint: 'fp-1' });
    expect(res.status).toBe(status);
    if (status === 403) return expect(res.body.error).toBe('License expired');
    expect(res.body.license).toEqual({ key: license.key, productId: license.product._id });
  });

  it('activate, heartbeat and deactivate answer the license key and product', async () => {
    const license = await t.createLicense({ heartbeatSeconds: 60 });
    const expected = { key: license.key, productId: license.product._id };
    const activated = await machine('activate', { key: license.key, fingerprint: 'fp-2', nonce: 'n1' });
    expect([activated.status, activated.body.license, activated.body.nonce]).toEqual([201, expected, 'n1']);
    const beat = await machine('heartbeat', { key: license.key, fingerprint: 'fp-2' });
    expect([beat.status, beat.body.license, beat.body.machine.fingerprint]).toEqual([200, expected, 'fp-2']);
    const gone = await machine('deactivate', { key: license.key, fingerprint: 'fp-2' });
    expect([gone.status, gone.body]).toEqual([
      200,
      {
        success: true,
        license: expected,
        request: { key: license.key, hwid: 'fp-2', entitlements: null, nonce: null },
        issuedAt: expect.any(String),
      },
    ]);
  });
});

describe(`graceDays and expirationStrategy in the admin API (${testDatabaseBackend()})`, () => {
  it('a policy sets them, a license made from it copies them, its own values win', async () => {
    const product = await t.createProduct();
    const created = await post('/api/policies', {
      productId: product._id,
      name: 'Kept',
      graceDays: 14,
      expirationStrategy: 'maintain',
    });
    expect(created.status).toBe(201);
    expect(created.body.policy).toMatchObject({ graceDays: 14, expirationStrategy: 'maintain' });
    const plain = await post('/api/policies', { productId: product._id, name: 'Plain' });
    expect(plain.body.policy).toMatchObject({ graceDays: null, expirationStrategy: null });

    const copied = await post('/api/licenses', { policyId: created.body.policy._id });
    expect(copied.status).toBe(201);
    expect(copied.body.license).toMatchObject({ graceDays: 14, expirationStrategy: 'maintain' });
    const own = await post('/api/licenses', {
      policyId: created.body.policy._id,
      graceDays: 0,
      expirationStrategy: 'revoke',
    });
    expect(own.body.license).toMatchObject({ graceDays: 0, expirationStrategy: 'revoke' });
    const defaults = await post('/api/licenses', { policyId: plain.body.policy._id });
    expect(defaults.body.license).toMatchObject({ graceDays: 0, expirationStrategy: 'revoke' });

    const updated = await t.http
      .put(`/api/licenses/${own.body.license._id}`)
      .set(admin.headers)
      .send({ graceDays: 90, expirationStrategy: 'maintain' });
    expect(updated.body.license).toMatchObject({ graceDays: 90, expirationStrategy: 'maintain' });
    const policyUpdated = await t.http
      .put(`/api/policies/${plain.body.policy._id}`)
      .set(admin.headers)
      .send({ graceDays: 2 });
    expect(policyUpdated.body.policy).toMatchObject({ graceDays: 2, expirationStrategy: null });
  });

  it.each([
    ['graceDays', 91],
    ['graceDays', -1],
    ['graceDays', 1.5],
    ['expirationStrategy', 'forever'],
  ])('refuses %s %j with 400', async (field, value) => {
    const product = await t.createProduct();
    const license = await post('/api/licenses', { product: product._id, [field]: value });
    expect([license.status, license.body.error]).toEqual([400, 'Validation failed']);
    const policy = await post('/api/policies', { productId: product._id, name: 'Bad', [field]: value });
    expect(policy.status).toBe(400);
  });
});

describe(`offline files with grace and expiry strategies (${testDatabaseBackend()})`, () => {
  const file = (id: string) => get(`/api/licenses/${id}/file`);

  it('in grace: graceEndsAt in the payload, validUntil no later', async () => {
    const license = await licenseWith({ expiredDaysAgo: 1, graceDays: 3 });
    const res = await file(license._id);
    expect(res.status).toBe(200);
    const payload = payloadOf(res.body);
    expect(payload.graceEndsAt).toBe(plus(license.expiresAt!, 3));
    expect(payload.validUntil).toBe(payload.graceEndsAt);
    expect(payload.expired).toBeUndefined();
  });

  it('maintain past expiry: expired: true, validUntil the offline period, not the expiry', async () => {
    const license = await licenseWith({ expiredDaysAgo: 10, expirationStrategy: 'maintain' });
    const before = Date.now();
    const payload = payloadOf((await file(license._id)).body);
    expect(payload.expired).toBe(true);
    expect(payload.graceEndsAt).toBeUndefined();
    expect(new Date(payload.validUntil).getTime()).toBeGreaterThanOrEqual(before + 30 * day - 1000);
  });

  it('after grace with revoke: 403 License expired; no grace and not expired: as before', async () => {
    const over = await licenseWith({ expiredDaysAgo: 4, graceDays: 3 });
    expect([(await file(over._id)).status, (await file(over._id)).body.error]).toEqual([403, 'License expired']);
    const plain = await licenseWith({ expiredDaysAgo: -2 });
    const payload = payloadOf((await file(plain._id)).body);
    expect(payload.validUntil).toBe(plain.expiresAt);
    expect('graceEndsAt' in payload || 'expired' in payload).toBe(false);
  });
});

describe(`grace and expiry in the console and the portal (${testDatabaseBackend()})`, () => {
  it('the policy form saves both fields and shows them; a bad value is said by its label', async () => {
    const product = await t.createProduct();
    const created = await form('/policies', {
      productId: product._id,
      name: unique('Grace policy'),
      graceDays: '10',
      expirationStrategy: 'maintain',
    });
    expect(created.status).toBe(303);
    const policyId = String(created.headers.location).split('/').pop()!;
    expect((await get(`/api/policies/${policyId}`)).body.policy).toMatchObject({
      graceDays: 10,
      expirationStrategy: 'maintain',
    });
    const page = await get(`/policies/${policyId}`);
    expect(page.text).toContain('Grace period (days)');
    expect(page.text).toMatch(/<option value="maintain" selected>/);
    expect(page.text).toMatch(/data-grace>10 days</);
    const cleared = await form(`/policies/${policyId}`, {
      productId: product._id,
      name: 'Grace policy 2',
      graceDays: '',
      expirationStrategy: '',
    });
    expect(cleared.status).toBe(303);
    expect((await get(`/api/policies/${policyId}`)).body.policy).toMatchObject({
      graceDays: null,
      expirationStrategy: null,
    });
    const bad = await form('/policies', { productId: product._id, name: 'Bad', graceDays: '91' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Grace period: a whole number of days from 0 to 90');
  });

  it('the new-license form and the license page set them; the page says where the license stands', async () => {
    const product = await t.createProduct();
    const created = await form('/licenses', {
      product: product._id,
      licenseType: 'fixed',
      graceDays: '7',
      expirationStrategy: 'revoke',
    });
    expect(created.status).toBe(303);
    const id = String(created.headers.location).split('/').pop()!.split('?')[0]!;
    expect((await get(`/api/licenses/${id}`)).body.license).toMatchObject({
      graceDays: 7,
      expirationStrategy: 'revoke',
    });

    const saved = await form(`/licenses/${id}/expiry`, { graceDays: '0', expirationStrategy: 'maintain' });
    expect(saved.status).toBe(303);
    expect((await get(`/api/licenses/${id}`)).body.license).toMatchObject({
      graceDays: 0,
      expirationStrategy: 'maintain',
    });
    const refused = await form(`/licenses/${id}/expiry`, { graceDays: 'soon', expirationStrategy: 'maintain' });
    expect(refused.status).toBe(303);
    expect((await get(`/licenses/${id}`)).text).toContain('Grace period: a whole number of days from 0 to 90');

    const inGrace = await licenseWith({ expiredDaysAgo: 1, graceDays: 3 });
    const page = await get(`/licenses/${inGrace._id}`);
    expect(page.text).toContain('Grace and expiry');
    expect(page.text).toMatch(/data-term>Grace until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC</);
  });

  it("the portal's license page shows the grace or the kept-working state", async () => {
    const { customer, session } = await t.customer();
    const inGrace = await licenseWith({ expiredDaysAgo: 1, graceDays: 3 }, { customer: customer._id });
    const kept = await licenseWith({ expiredDaysAgo: 3, expirationStrategy: 'maintain' }, { customer: customer._id });
    const plain = await licenseWith({ expiredDaysAgo: -3 }, { customer: customer._id });
    const page = (id: string) => t.http.get(`/my-licenses/${id}`).set('Cookie', session.cookie);
    const graceEnd = plus(inGrace.expiresAt!, 3).slice(0, 16).replace('T', ' ');
    expect((await page(inGrace._id)).text).toContain(`Grace until ${graceEnd} UTC`);
    expect((await page(kept._id)).text).toContain('Expired, kept working (maintain)');
    expect((await page(plain._id)).text).not.toContain('data-term');
    const api = await t.http.get(`/api/customer/licenses/${kept._id}/detail`).set('Cookie', session.cookie);
    expect(api.body.license).toMatchObject({ graceDays: 0, expirationStrategy: 'maintain' });
  });
});
