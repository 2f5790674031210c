import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { verifyResponse } from '../src/signing/signing.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Policies and entitlements (decisions.md, wave 3): the admin APIs, licenses made from a policy,
// and validation that asks for entitlements, over HTTP against the real database.

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
const unique = (code: string) => `${code}_${process.pid}_${++sequence}`;
const post = (path: string, body: object) => t.http.post(path).set(admin.headers).send(body);
const put = (path: string, body: object) => t.http.put(path).set(admin.headers).send(body);
const del = (path: string) => t.http.delete(path).set(admin.headers);
const get = (path: string) => t.http.get(path).set('Cookie', admin.cookie);
const validate = (body: Record<string, unknown>) => t.http.post('/api/license/validate').send(body);

async function entitlement(code = unique('E'), name = 'A feature') {
  const res = await post('/api/entitlements', { code, name });
  expect(res.status).toBe(201);
  return res.body.entitlement as { _id: string; code: string; name: string };
}

async function policy(body: Record<string, unknown> = {}) {
  const productId = body.productId ?? (await t.createProduct())._id;
  const res = await post('/api/policies', { name: 'Pro yearly', ...body, productId });
  expect(res.status).toBe(201);
  return res.body.policy as { _id: string; productId: string; name: string; entitlements: string[] };
}

async function auditOf(resourceId: string) {
  const res = await get(`/api/audit?resourceId=${resourceId}`);
  return (res.body.auditLogs as Array<{ action: string; resourceType: string }>)
    .map((entry) => `${entry.resourceType}:${entry.action}`)
    .sort();
}

describe(`entitlements API (${testDatabaseBackend()})`, () => {
  it('is for admins only: 401 without a session, 403 for a user who is not an admin', async () => {
    for (const path of ['/api/entitlements', '/api/policies']) {
      expect((await t.http.get(path)).status).toBe(401);
      const somebody = await t.signIn('somebody');
      expect((await t.http.get(path).set('Cookie', somebody.cookie)).status).toBe(403);
      expect((await t.http.post(path).set(somebody.headers).send({})).status).toBe(403);
    }
  });

  it('creates, lists by code, reads, renames and deletes an entitlement, each change audited', async () => {
    const code = unique('SSO');
    const created = await post('/api/entitlements', { code, name: 'Single sign-on' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      entitlement: {
        _id: expect.any(String),
        code,
        name: 'Single sign-on',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const id = created.body.entitlement._id;
    const other = await entitlement(unique('A'));

    const list = await get('/api/entitlements');
    expect(list.status).toBe(200);
    const codes = list.body.entitlements.map((item: { code: string }) => item.code);
    expect(codes).toEqual([...codes].sort());
    expect(codes).toEqual(expect.arrayContaining([code, other.code]));

    expect((await get(`/api/entitlements/${id}`)).body.entitlement.code).toBe(code);
    const renamed = await put(`/api/entitlements/${id}`, { code: `${code}.v2`, name: 'SSO' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.entitlement).toMatchObject({ code: `${code}.v2`, name: 'SSO' });

    expect((await del(`/api/entitlements/${id}`)).body).toEqual({ success: true });
    expect((await get(`/api/entitlements/${id}`)).status).toBe(404);
    expect(await auditOf(id)).toEqual(['entitlement:create', 'entitlement:delete', 'entitlement:update']);
  });

  it('answers 409 "Entitlement already exists" for a taken code (create and rename), 400 for a bad code, 404 for none', async () => {
    const taken = await entitlement();
    const again = await post('/api/entitlements', { code: taken.code, name: 'Again' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: 'Entitlement already exists' });
    const other = await entitlement();
    expect((await put(`/api/entitlements/${other._id}`, { code: taken.code })).body.error).toBe(
      'Entitlement already exists',
    );

    for (const code of ['', 'has space', 'a,b', 'x'.repeat(65), 'ü']) {
      const res = await post('/api/entitlements', { code, name: 'Bad' });
      expect(res.status, code).toBe(400);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details).toHaveProperty('code');
    }
    expect((await post('/api/entitlements', { code: unique('N') })).status).toBe(400);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      expect((await get(`/api/entitlements/${id}`)).status).toBe(404);
      expect((await put(`/api/entitlements/${id}`, { name: 'x' })).body.error).toBe('Entitlement not found');
      expect((await del(`/api/entitlements/${id}`)).status).toBe(404);
    }
  });

  it('answers 409 "Entitlement in use" while a policy or a license grants it, and deletes it once neither does', async () => {
    const byPolicy = await entitlement();
    const byLicense = await entitlement();
    const granting = await policy({ entitlements: [byPolicy.code] });
    const license = await t.createLicense({ entitlements: [byLicense.code] });
    for (const item of [byPolicy, byLicense]) {
      const res = await del(`/api/entitlements/${item._id}`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, error: 'Entitlement in use' });
    }
    expect((await put(`/api/policies/${granting._id}`, { entitlements: [] })).status).toBe(200);
    expect((await put(`/api/licenses/${license._id}`, { entitlements: [] })).status).toBe(200);
    expect((await del(`/api/entitlements/${byPolicy._id}`)).status).toBe(200);
    expect((await del(`/api/entitlements/${byLicense._id}`)).status).toBe(200);
  });
});

describe(`policies API (${testDatabaseBackend()})`, () => {
  it('creates a policy with every field, lists by productId, reads, updates and deletes it, each change audited', async () => {
    const product = await t.createProduct();
    const [sso, exp] = [await entitlement(unique('SSO')), await entitlement(unique('EXPORT'))];
    const created = await post('/api/policies', {
      productId: product._id,
      name: 'Team',
      licenseType: 'consumption',
      durationDays: 30,
      ipLimit: 3,
      hwidLimit: 2,
      heartbeatSeconds: 600,
      credits: 100,
      entitlements: [sso.code, exp.code, sso.code],
    });
    expect(created.status).toBe(201);
    expect(created.body.policy).toMatchObject({
      productId: product._id,
      product: { _id: product._id, name: product.name },
      name: 'Team',
      licenseType: 'consumption',
      durationDays: 30,
      ipLimit: 3,
      hwidLimit: 2,
      heartbeatSeconds: 600,
      credits: 100,
      entitlements: [exp.code, sso.code].sort(),
      licenseCount: 0,
    });
    const id = created.body.policy._id;
    const bare = await policy({ productId: product._id, name: 'Bare' });
    expect(bare).toMatchObject({
      licenseType: null,
      durationDays: null,
      ipLimit: null,
      hwidLimit: null,
      heartbeatSeconds: null,
      credits: null,
      entitlements: [],
    });
    const elsewhere = await policy();

    const listed = await get(`/api/policies?productId=${product._id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.policies.map((item: { _id: string }) => item._id)).toEqual([bare._id, id]);
    expect((await get('/api/policies')).body.policies.map((item: { _id: string }) => item._id)).toContain(
      elsewhere._id,
    );
    expect((await get('/api/policies?productId=nope')).status).toBe(400);

    const updated = await put(`/api/policies/${id}`, { name: 'Team+', durationDays: null, entitlements: [sso.code] });
    expect(updated.status).toBe(200);
    expect(updated.body.policy).toMatchObject({
      name: 'Team+',
      durationDays: null,
      ipLimit: 3,
      entitlements: [sso.code],
    });
    expect((await get(`/api/policies/${id}`)).body.policy.name).toBe('Team+');
    expect((await del(`/api/policies/${id}`)).body).toEqual({ success: true });
    expect((await get(`/api/policies/${id}`)).status).toBe(404);
    expect(await auditOf(id)).toEqual(['policy:create', 'policy:delete', 'policy:update']);
  });

  it('answers 400 "Validation failed" naming unknown entitlement codes, 404 for an unknown product or policy, 400 for bad fields', async () => {
    const product = await t.createProduct();
    const known = await entitlement();
    const unknown = await post('/api/policies', {
      productId: product._id,
      name: 'P',
      entitlements: [known.code, 'NOPE_1', 'NOPE_2'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('Validation failed');
    expect(unknown.body.details.entitlements).toContain('NOPE_1');
    expect(unknown.body.details.entitlements).toContain('NOPE_2');
    expect(unknown.body.details.entitlements).not.toContain(known.code);
    const existing = await policy({ productId: product._id });
    expect(
      (await put(`/api/policies/${existing._id}`, { entitlements: ['NOPE_3'] })).body.details.entitlements,
    ).toContain('NOPE_3');

    expect(
      (await post('/api/policies', { productId: '00000000-0000-4000-8000-000000000000', name: 'P' })).body.error,
    ).toBe('Product not found');
    for (const bad of [
      { name: '' },
      { durationDays: 0 },
      { heartbeatSeconds: 5 },
      { ipLimit: -1 },
      { licenseType: 'forever' },
      { entitlements: ['a b'] },
    ]) {
      const res = await post('/api/policies', { productId: product._id, name: 'P', ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await put('/api/policies/00000000-0000-4000-8000-000000000000', { name: 'x' })).body.error).toBe(
      'Policy not found',
    );
    expect((await del('/api/policies/not-an-id')).status).toBe(404);
  });

  it('answers 409 "Policy in use" to deleting a policy that licenses use', async () => {
    const used = await policy();
    await t.createLicense({ policyId: used._id });
    const res = await del(`/api/policies/${used._id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, error: 'Policy in use' });
    expect((await get(`/api/policies/${used._id}`)).body.policy.licenseCount).toBe(1);
  });
});

describe(`licenses from a policy (${testDatabaseBackend()})`, () => {
  it('takes every field the request leaves out from the policy, expiresAt = now + durationDays, and keeps policyId', async () => {
    const sso = await entitlement();
    const template = await policy({
      licenseType: 'consumption',
      durationDays: 30,
      ipLimit: 3,
      hwidLimit: 2,
      heartbeatSeconds: 600,
      credits: 50,
      entitlements: [sso.code],
    });
    const before = Date.now();
    const res = await post('/api/licenses', { policyId: template._id });
    expect(res.status).toBe(201);
    const license = res.body.license;
    expect(license).toMatchObject({
      product: { _id: template.productId },
      policy: { _id: template._id, name: template.name },
      licenseType: 'consumption',
      ipLimit: 3,
      hwidLimit: 2,
      heartbeatSeconds: 600,
      credits: { total: 50, used: 0, remaining: 50 },
      entitlements: [],
      effectiveEntitlements: [sso.code],
    });
    const expires = Date.parse(license.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 30 * day - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * day + 1000);

    // What the request sets wins; a later change of the policy's limits leaves the license as it was made.
    const own = await entitlement();
    const set = await post('/api/licenses', {
      product: template.productId,
      policyId: template._id,
      licenseType: 'fixed',
      ipLimit: 9,
      expiresAt: null,
      entitlements: [own.code],
    });
    expect(set.status).toBe(201);
    expect(set.body.license).toMatchObject({
      licenseType: 'fixed',
      ipLimit: 9,
      hwidLimit: 2,
      expiresAt: null,
      entitlements: [own.code],
      effectiveEntitlements: [own.code, sso.code].sort(),
    });
    await put(`/api/policies/${template._id}`, { ipLimit: 1 });
    expect((await get(`/api/licenses/${set.body.license._id}`)).body.license.ipLimit).toBe(9);
  });

  it('refuses a policy of another product (400), an unknown policy (404), unknown own codes (400), and neither product nor policy (400)', async () => {
    const template = await policy();
    const other = await t.createProduct();
    const mismatch = await post('/api/licenses', { product: other._id, policyId: template._id });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details).toHaveProperty('policyId');
    expect((await post('/api/licenses', { policyId: '00000000-0000-4000-8000-000000000000' })).body.error).toBe(
      'Policy not found',
    );
    const unknown = await post('/api/licenses', { product: other._id, entitlements: ['NOT_THERE'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.entitlements).toContain('NOT_THERE');
    const neither = await post('/api/licenses', {});
    expect(neither.status).toBe(400);
    expect(neither.body.details).toHaveProperty('product');
  });

  it("updates a license's own entitlements and its policy", async () => {
    const [a, b] = [await entitlement(), await entitlement()];
    const template = await policy({ entitlements: [b.code] });
    const license = await t.createLicense({ product: template.productId });
    const res = await put(`/api/licenses/${license._id}`, { entitlements: [a.code], policyId: template._id });
    expect(res.status).toBe(200);
    expect(res.body.license).toMatchObject({
      entitlements: [a.code],
      policy: { _id: template._id },
      effectiveEntitlements: [a.code, b.code].sort(),
    });
    const cleared = await put(`/api/licenses/${license._id}`, { policyId: null, entitlements: [] });
    expect(cleared.body.license).toMatchObject({ entitlements: [], policy: null, effectiveEntitlements: [] });
    const elsewhere = await policy();
    expect((await put(`/api/licenses/${license._id}`, { policyId: elsewhere._id })).status).toBe(400);
  });
});

describe(`validation with entitlements (${testDatabaseBackend()})`, () => {
  it('answers the effective entitlements (sorted) and the policy on success, and [] / null without them', async () => {
    const [x, y, z, w] = [
      await entitlement(unique('Z')),
      await entitlement(unique('A')),
      await entitlement(unique('M')),
      await entitlement(unique('b.lower')),
    ];
    const template = await policy({ name: 'Gold', entitlements: [x.code, y.code] });
    const license = await t.createLicense({ policyId: template._id, entitlements: [z.code, y.code, w.code] });
    const res = await validate({ key: license.key, ip: '10.40.0.1' });
    expect(res.status).toBe(200);
    // Sorted by code point (upper case first) on every backend, whatever the database's collation.
    expect(res.body.license.entitlements).toEqual([y.code, z.code, x.code, w.code]);
    expect((await get(`/api/licenses/${license._id}`)).body.license.effectiveEntitlements).toEqual([
      y.code,
      z.code,
      x.code,
      w.code,
    ]);
    expect(res.body.license.policy).toEqual({ _id: template._id, name: 'Gold' });
    const ok = await validate({ key: license.key, ip: '10.40.0.1', entitlements: [z.code, x.code] });
    expect(ok.status).toBe(200);
    expect(ok.body.valid).toBe(true);

    const plain = await t.createLicense({});
    const bare = await validate({ key: plain.key, ip: '10.40.0.2' });
    expect(bare.body.license).toMatchObject({ entitlements: [], policy: null });
  });

  it('answers 403 "Entitlement missing" with details.missing (sorted), signed, recorded, using no credit and no seat', async () => {
    const has = await entitlement();
    const license = await t.createLicense({
      licenseType: 'consumption',
      credits: 5,
      hwidLimit: 1,
      entitlements: [has.code],
    });
    const res = await validate({
      key: license.key,
      ip: '10.41.0.1',
      hwid: 'box-1',
      entitlements: ['ZZZ', has.code, 'AAA', 'ZZZ'],
      nonce: 'n-7',
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      success: false,
      valid: false,
      error: 'Entitlement missing',
      details: { missing: ['AAA', 'ZZZ'] },
      nonce: 'n-7',
      // What the service read: the codes asked, sorted, duplicates kept.
      request: { key: license.key, hwid: 'box-1', entitlements: ['AAA', has.code, 'ZZZ', 'ZZZ'].sort(), nonce: 'n-7' },
      issuedAt: expect.any(String),
    });
    const { publicKey } = (await t.http.get('/api/license/public-key')).body;
    expect(verifyResponse(publicKey, res.text, String(res.headers['x-license-signature']))).toBe(true);

    const after = (await get(`/api/licenses/${license._id}`)).body.license;
    expect(after).toMatchObject({ credits: { used: 0 }, usedIps: [], usedHwids: [] });
    const { rows } = await t.database.pool.query('SELECT status, reason FROM usage_records WHERE license_id = $1', [
      license._id,
    ]);
    expect(rows).toEqual([{ status: 'invalid', reason: 'Entitlement missing' }]);
    // The license's state comes first: a revoked license answers so, whatever it is asked for.
    await t.context.services.licenses.revoke({ userId: 'test', ip: null, userAgent: null }, license._id, 'x');
    expect((await validate({ key: license.key, entitlements: ['AAA'] })).body.error).toBe('License revoked');
  });

  it('refuses more than 20 codes or a malformed one with 400 "Validation failed", signed', async () => {
    const license = await t.createLicense({});
    const many = await validate({ key: license.key, entitlements: Array.from({ length: 21 }, (_, i) => `C${i}`) });
    expect(many.status).toBe(400);
    expect(many.body.error).toBe('Validation failed');
    expect(many.headers['x-license-signature']).toBeTruthy();
    expect((await validate({ key: license.key, entitlements: ['a,b'] })).status).toBe(400);
    expect((await validate({ key: license.key, entitlements: 'SSO' })).status).toBe(400);
    expect(
      (await validate({ key: license.key, entitlements: Array.from({ length: 20 }, (_, i) => `C${i}`) })).status,
    ).toBe(403);
  });

  it('applies a policy change at the next validation while 100 validations run: some before, all after see it, none errors', async () => {
    const [base, added] = [await entitlement(), await entitlement()];
    const template = await policy({ entitlements: [base.code] });
    const license = await t.createLicense({ policyId: template._id });
    const both = [base.code, added.code].sort().join(',');
    let answered = 0;
    let changedAt = Number.POSITIVE_INFINITY;
    let change: Promise<void> | undefined;
    // 100 validations, a few at a time; the policy changes once 30 have answered, while the rest run.
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 3));
        const startedAt = Date.now();
        const res = await validate({ key: license.key, ip: '10.42.0.1' });
        answered += 1;
        if (answered === 30) {
          change = put(`/api/policies/${template._id}`, { entitlements: [base.code, added.code] }).then((updated) => {
            expect(updated.status).toBe(200);
            changedAt = Date.now();
          });
        }
        return { res, startedAt };
      }),
    );
    await change;
    for (const { res } of answers) expect(res.status).toBe(200);
    const seen = answers.map(({ res, startedAt }) => ({
      value: (res.body.license.entitlements as string[]).join(','),
      startedAt,
    }));
    for (const { value } of seen) expect([base.code, both]).toContain(value);
    expect(seen.filter(({ value }) => value === base.code).length).toBeGreaterThanOrEqual(30);
    for (const { value, startedAt } of seen) if (startedAt > changedAt) expect(value).toBe(both);
    // Every validation after the change sees it, also when it asks for the new code.
    const next = await Promise.all(
      Array.from({ length: 20 }, () => validate({ key: license.key, ip: '10.42.0.1', entitlements: [added.code] })),
    );
    for (const res of next) expect(res.status).toBe(200);
  });
});

describe(`offline files and the portal carry entitlements (${testDatabaseBackend()})`, () => {
  it('puts the effective entitlements in the file payload and the customer license', async () => {
    const [a, b] = [await entitlement(), await entitlement()];
    const template = await policy({ entitlements: [b.code] });
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ policyId: template._id, customer: customer._id, entitlements: [a.code] });
    const payloadOf = (file: { payload: string }) => JSON.parse(Buffer.from(file.payload, 'base64').toString('utf8'));
    const adminFile = await get(`/api/licenses/${license._id}/file`);
    expect(payloadOf(adminFile.body).entitlements).toEqual([a.code, b.code].sort());
    const customerFile = await t.http.get(`/api/customer/licenses/${license._id}/file`).set('Cookie', session.cookie);
    expect(payloadOf(customerFile.body).entitlements).toEqual([a.code, b.code].sort());
    const mine = await t.http.get(`/api/customer/licenses/${license._id}/detail`).set('Cookie', session.cookie);
    expect(mine.body.license.entitlements).toEqual([a.code, b.code].sort());
  });
});

describe(`the console's policy and entitlement pages (${testDatabaseBackend()})`, () => {
  const HOSTILE = '<script>alert(1)</script>';
  /** A form post as a browser sends it (urlencoded), with the session's CSRF token unless told otherwise. */
  const form = (path: string, fields: Record<string, string | string[]>, session: Session = admin, csrf = true) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send(csrf ? { _csrf: session.csrfToken, ...fields } : fields);

  it('refuses visitors, customers and posts without the CSRF token; creates, edits and deletes through the forms, audited', async () => {
    for (const path of ['/policies', '/entitlements']) expect((await t.http.get(path)).status).toBe(303);
    const { session } = await t.customer();
    expect((await form('/entitlements', { code: unique('X'), name: 'Sneaky' }, session)).status).toBe(403);
    expect((await form('/entitlements', { code: unique('X'), name: 'No token' }, admin, false)).status).toBe(403);

    const code = unique('PAGE');
    const created = await form('/entitlements', { code, name: HOSTILE });
    expect(created.status).toBe(303);
    const entitlementPage = await t.http.get(String(created.headers.location)).set('Cookie', admin.cookie);
    expect(entitlementPage.text).not.toContain(HOSTILE);
    expect(entitlementPage.text).toContain('&lt;script&gt;');
    const id = String(created.headers.location).split('/').pop()!;

    const product = await t.createProduct({ name: 'Page product' });
    const policyCreated = await form('/policies', {
      productId: product._id,
      name: 'Page policy',
      durationDays: '30',
      ipLimit: '',
      entitlements: code,
    });
    expect(policyCreated.status).toBe(303);
    const policyId = String(policyCreated.headers.location).split('/').pop()!;
    expect((await get(`/api/policies/${policyId}`)).body.policy).toMatchObject({
      durationDays: 30,
      ipLimit: null,
      entitlements: [code],
    });
    const bad = await form('/policies', { productId: product._id, name: 'Bad', durationDays: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Duration: a whole number of days');
    expect(
      (await form(`/policies/${policyId}`, { productId: product._id, name: 'Page policy 2', entitlements: [] })).status,
    ).toBe(303);
    expect((await get(`/api/policies/${policyId}`)).body.policy).toMatchObject({
      name: 'Page policy 2',
      durationDays: null,
      entitlements: [],
    });
    expect((await get(`/policies?product=${product._id}`)).text).toContain('Page policy 2');

    // A license page sets its policy and own entitlements.
    const license = await t.createLicense({ product: product._id });
    expect((await form(`/licenses/${license._id}/entitlements`, { policyId, entitlements: [code] })).status).toBe(303);
    expect((await get(`/api/licenses/${license._id}`)).body.license).toMatchObject({
      policy: { _id: policyId },
      entitlements: [code],
    });
    const refused = await form(`/entitlements/${id}/delete`, {});
    expect(refused.status).toBe(303);
    expect((await get(`/api/entitlements/${id}`)).status).toBe(200);
    expect(await auditOf(id)).toEqual(['entitlement:create', 'entitlement:delete']);
  });
});
