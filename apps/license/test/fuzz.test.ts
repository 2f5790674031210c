import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fuzzRuns, jsonBodies, normalisedRoute, routesWithRequestBody } from '@app/http/testing';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

/**
 * Every route that takes a JSON body, sent arbitrary JSON: odd text (lone surrogates, NUL, full
 * Unicode, in values and keys), huge numbers, deep nesting, wrong types, shaped like the route's
 * fields or not. Whatever comes in, the answer is never a 5xx.
 */
interface Ids {
  product: string;
  customer: string;
  license: string;
  licenseKey: string;
  action: string;
  customerLicense: string;
  endpoint: string;
  policy: string;
  entitlement: string;
  entitlementCode: string;
  /** A draft release of `product`. */
  release: string;
  /** A machine of `license` (the first deactivation frees it; the rest meet the not-found page). */
  machine: string;
  /** The notification channel pages' `:channel` (email, sms, telegram). */
  email: string;
  sms: string;
  telegram: string;
}
interface Route {
  method: 'post' | 'put';
  path: (ids: Ids) => string;
  auth: 'admin' | 'customer' | 'none';
  fields: string[];
  /** A body the route accepts; the fuzzer replaces one or two of its fields. */
  valid?: (ids: Ids) => Record<string, unknown>;
}

const validAction = { name: 'Fuzz target', trigger: { event: 'custom' }, actions: [{ type: 'custom', params: {} }] };

const routes: Route[] = [
  {
    method: 'post',
    path: () => '/api/license/validate',
    auth: 'none',
    fields: ['key', 'ip', 'hwid', 'nonce', 'entitlements'],
    valid: (ids) => ({ key: ids.licenseKey, ip: '10.0.0.1', hwid: 'hw-1', entitlements: [ids.entitlementCode] }),
  },
  {
    method: 'post',
    path: () => '/api/entitlements',
    auth: 'admin',
    fields: ['code', 'name'],
    valid: () => ({ code: 'FUZZ', name: 'Fuzz' }),
  },
  { method: 'put', path: (ids) => `/api/entitlements/${ids.entitlement}`, auth: 'admin', fields: ['code', 'name'] },
  {
    method: 'post',
    path: () => '/api/policies',
    auth: 'admin',
    fields: [
      'productId',
      'name',
      'licenseType',
      'durationDays',
      'ipLimit',
      'hwidLimit',
      'heartbeatSeconds',
      'credits',
      'entitlements',
    ],
    valid: (ids) => ({ productId: ids.product, name: 'Fuzz policy', entitlements: [ids.entitlementCode] }),
  },
  {
    method: 'put',
    path: (ids) => `/api/policies/${ids.policy}`,
    auth: 'admin',
    fields: [
      'productId',
      'name',
      'licenseType',
      'durationDays',
      'ipLimit',
      'hwidLimit',
      'heartbeatSeconds',
      'credits',
      'entitlements',
    ],
  },
  {
    method: 'post',
    path: () => '/entitlements',
    auth: 'admin',
    fields: ['code', 'name'],
    valid: () => ({ code: 'FUZZ_PAGE', name: 'Fuzz' }),
  },
  { method: 'post', path: (ids) => `/entitlements/${ids.entitlement}`, auth: 'admin', fields: ['code', 'name'] },
  {
    method: 'post',
    path: () => '/policies',
    auth: 'admin',
    fields: [
      'productId',
      'name',
      'licenseType',
      'durationDays',
      'ipLimit',
      'hwidLimit',
      'heartbeatSeconds',
      'credits',
      'entitlements',
    ],
    valid: (ids) => ({ productId: ids.product, name: 'Fuzz page policy', entitlements: ids.entitlementCode }),
  },
  {
    method: 'post',
    path: (ids) => `/policies/${ids.policy}`,
    auth: 'admin',
    fields: [
      'productId',
      'name',
      'licenseType',
      'durationDays',
      'ipLimit',
      'hwidLimit',
      'heartbeatSeconds',
      'credits',
      'entitlements',
    ],
  },
  {
    method: 'post',
    path: () => '/api/license/machines/activate',
    auth: 'none',
    fields: ['key', 'fingerprint', 'name', 'platform'],
    valid: (ids) => ({ key: ids.licenseKey, fingerprint: 'fuzz-fp', name: 'Fuzz', platform: 'linux' }),
  },
  {
    method: 'post',
    path: () => '/api/license/machines/heartbeat',
    auth: 'none',
    fields: ['key', 'fingerprint'],
    valid: (ids) => ({ key: ids.licenseKey, fingerprint: 'fuzz-fp' }),
  },
  {
    method: 'post',
    path: () => '/api/license/machines/deactivate',
    auth: 'none',
    fields: ['key', 'fingerprint'],
    valid: (ids) => ({ key: ids.licenseKey, fingerprint: 'fuzz-fp' }),
  },
  {
    method: 'post',
    path: () => '/api/license/releases/upgrade',
    auth: 'none',
    fields: ['key', 'fingerprint', 'currentVersion', 'channel', 'platform', 'arch', 'nonce'],
    valid: (ids) => ({ key: ids.licenseKey, currentVersion: '0.1.0' }),
  },
  {
    method: 'post',
    path: (ids) => `/api/products/${ids.product}/releases`,
    auth: 'admin',
    fields: ['version', 'channel', 'notes', 'entitlements'],
    valid: () => ({ version: '9.9.9', channel: 'beta' }),
  },
  {
    method: 'put',
    path: (ids) => `/api/releases/${ids.release}`,
    auth: 'admin',
    fields: ['channel', 'notes', 'entitlements'],
    valid: () => ({ notes: 'Fuzzed' }),
  },
  {
    method: 'post',
    path: (ids) => `/api/releases/${ids.release}/artifacts`,
    auth: 'admin',
    fields: ['filename', 'platform', 'arch', 'size', 'sha256', 'signature'],
    valid: () => ({ filename: 'app.tar.gz', platform: 'linux', arch: 'x86_64', size: 10, sha256: 'a'.repeat(64) }),
  },
  {
    method: 'post',
    path: () => '/api/license/machines/borrow',
    auth: 'none',
    fields: ['key', 'fingerprint', 'hours'],
    valid: (ids) => ({ key: ids.licenseKey, fingerprint: 'fuzz-fp', hours: 1 }),
  },
  {
    method: 'post',
    path: (ids) => `/api/licenses/${ids.license}/machines/offline`,
    auth: 'admin',
    fields: ['requestCode'],
  },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/machines/offline`,
    auth: 'admin',
    fields: ['requestCode'],
  },
  {
    method: 'post',
    path: (ids) => `/api/customer/licenses/${ids.customerLicense}/machines/offline`,
    auth: 'customer',
    fields: ['requestCode'],
  },
  {
    method: 'post',
    path: (ids) => `/my-licenses/${ids.customerLicense}/machines/offline`,
    auth: 'customer',
    fields: ['requestCode'],
  },
  { method: 'post', path: () => '/api/stripe', auth: 'none', fields: ['id', 'type', 'data'] },
  {
    method: 'post',
    path: () => '/api/customers',
    auth: 'admin',
    fields: ['name', 'email', 'userId'],
    valid: () => ({ name: 'Fuzz', email: 'fuzz@example.com' }),
  },
  {
    method: 'put',
    path: (ids) => `/api/customers/${ids.customer}`,
    auth: 'admin',
    fields: ['name', 'email', 'userId'],
  },
  {
    method: 'post',
    path: () => '/api/products',
    auth: 'admin',
    fields: ['name', 'description', 'isActive', 'licensePrefix'],
    valid: () => ({ name: 'Fuzz product' }),
  },
  {
    method: 'put',
    path: (ids) => `/api/products/${ids.product}`,
    auth: 'admin',
    fields: ['name', 'description', 'isActive', 'licensePrefix'],
  },
  // The admin console's form posts (a browser sends them urlencoded; JSON reaches the same parser's result).
  {
    method: 'post',
    path: () => '/products',
    auth: 'admin',
    fields: ['name', 'description', 'isActive', 'licensePrefix'],
    valid: () => ({ name: 'Fuzz page product', isActive: 'on' }),
  },
  {
    method: 'post',
    path: (ids) => `/products/${ids.product}`,
    auth: 'admin',
    fields: ['name', 'description', 'isActive', 'licensePrefix'],
    valid: () => ({ name: 'Fuzz page product' }),
  },
  {
    method: 'post',
    path: () => '/customers',
    auth: 'admin',
    fields: ['name', 'email', 'userId'],
    valid: () => ({ name: 'Fuzz', email: 'fuzz-page@example.com' }),
  },
  {
    method: 'post',
    path: (ids) => `/customers/${ids.customer}`,
    auth: 'admin',
    fields: ['name', 'email', 'userId'],
    valid: () => ({ name: 'Fuzz', email: 'fuzz-page@example.com' }),
  },
  {
    method: 'post',
    path: () => '/api/webhooks/endpoints',
    auth: 'admin',
    fields: ['url', 'events'],
    valid: () => ({ url: 'https://93.184.215.14/fuzz-api', events: ['LICENSE_CREATED'] }),
  },
  {
    method: 'put',
    path: (ids) => `/api/webhooks/endpoints/${ids.endpoint}`,
    auth: 'admin',
    fields: ['enabled'],
    valid: () => ({ enabled: true }),
  },
  {
    method: 'post',
    path: () => '/webhooks/endpoints',
    auth: 'admin',
    fields: ['url', 'events'],
    valid: () => ({ url: 'https://93.184.215.14/fuzz', events: 'LICENSE_CREATED' }),
  },
  {
    method: 'post',
    path: () => '/api/licenses',
    auth: 'admin',
    fields: [
      'product',
      'customer',
      'licenseType',
      'expiresAt',
      'ipLimit',
      'hwidLimit',
      'credits',
      'parent',
      'active',
      'convertToType',
      'autoConvert',
      'convertDurationDays',
      'members',
      'metadata',
      'policyId',
      'entitlements',
    ],
    valid: (ids) => ({
      product: ids.product,
      customer: ids.customer,
      policyId: ids.policy,
      entitlements: [ids.entitlementCode],
    }),
  },
  {
    method: 'put',
    path: (ids) => `/api/licenses/${ids.license}`,
    auth: 'admin',
    fields: [
      'customer',
      'licenseType',
      'expiresAt',
      'ipLimit',
      'hwidLimit',
      'credits',
      'parent',
      'active',
      'convertToType',
      'autoConvert',
      'convertDurationDays',
      'members',
      'metadata',
      'policyId',
      'entitlements',
    ],
  },
  { method: 'post', path: (ids) => `/api/licenses/${ids.license}/suspend`, auth: 'admin', fields: ['reason'] },
  { method: 'post', path: (ids) => `/api/licenses/${ids.license}/reactivate`, auth: 'admin', fields: [] },
  { method: 'post', path: (ids) => `/api/licenses/${ids.license}/revoke`, auth: 'admin', fields: ['reason'] },
  {
    method: 'post',
    path: (ids) => `/api/customer/licenses/${ids.customerLicense}/release`,
    auth: 'customer',
    fields: ['ip', 'hwid'],
    valid: () => ({ ip: '10.0.0.1' }),
  },
  {
    method: 'post',
    path: () => '/api/license/clear',
    auth: 'admin',
    fields: ['key'],
    valid: (ids) => ({ key: ids.licenseKey }),
  },
  { method: 'post', path: () => '/api/license/rotate', auth: 'admin', fields: ['key'] },
  {
    method: 'post',
    path: () => '/api/automated-actions',
    auth: 'admin',
    fields: ['name', 'description', 'enabled', 'trigger', 'actions'],
    valid: () => validAction,
  },
  {
    method: 'put',
    path: (ids) => `/api/automated-actions/${ids.action}`,
    auth: 'admin',
    fields: ['name', 'description', 'enabled', 'trigger', 'actions'],
    valid: () => validAction,
  },
  { method: 'post', path: (ids) => `/api/automated-actions/${ids.action}/execute`, auth: 'admin', fields: ['context'] },
  { method: 'post', path: () => '/api/auth/token', auth: 'admin', fields: [] },
  { method: 'post', path: () => '/api/2fa/verify', auth: 'admin', fields: ['token', 'backupCode'] },
  { method: 'post', path: () => '/api/2fa/enable', auth: 'admin', fields: ['token'] },
  { method: 'post', path: () => '/api/2fa/disable', auth: 'admin', fields: ['password'] },
  // The admin console's form posts (JSON bodies reach them too). Rotate late: the key changes.
  {
    method: 'post',
    path: () => '/licenses',
    auth: 'admin',
    fields: [
      'product',
      'customer',
      'licenseType',
      'expiresAt',
      'ipLimit',
      'hwidLimit',
      'credits',
      'policyId',
      'entitlements',
    ],
    valid: (ids) => ({
      product: ids.product,
      customer: ids.customer,
      policyId: ids.policy,
      entitlements: ids.entitlementCode,
    }),
  },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/suspend`,
    auth: 'admin',
    fields: ['reason'],
    valid: () => ({ reason: 'Fuzz' }),
  },
  { method: 'post', path: (ids) => `/licenses/${ids.license}/reactivate`, auth: 'admin', fields: [] },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/revoke`,
    auth: 'admin',
    fields: ['reason'],
    valid: () => ({ reason: 'Fuzz' }),
  },
  { method: 'post', path: (ids) => `/licenses/${ids.license}/clear`, auth: 'admin', fields: [] },
  { method: 'post', path: (ids) => `/licenses/${ids.license}/rotate`, auth: 'admin', fields: [] },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/seats`,
    auth: 'admin',
    fields: ['heartbeatSeconds'],
    valid: () => ({ heartbeatSeconds: '60' }),
  },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/expiry`,
    auth: 'admin',
    fields: ['graceDays', 'expirationStrategy'],
    valid: () => ({ graceDays: '7', expirationStrategy: 'maintain' }),
  },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/entitlements`,
    auth: 'admin',
    fields: ['policyId', 'entitlements'],
    valid: (ids) => ({ policyId: ids.policy, entitlements: [ids.entitlementCode] }),
  },
  {
    method: 'post',
    path: (ids) => `/licenses/${ids.license}/machines/${ids.machine}/deactivate`,
    auth: 'admin',
    fields: [],
  },
  // The admin console's automation forms (fields named `<action>.<param>` besides the common ones).
  {
    method: 'post',
    path: () => '/automations',
    auth: 'admin',
    fields: [
      'name',
      'description',
      'enabled',
      'trigger',
      'threshold',
      'action',
      'webhook.url',
      'update_license.extendDays',
    ],
    valid: () => ({ name: 'Fuzz page automation', trigger: 'custom', action: 'custom' }),
  },
  {
    method: 'post',
    path: (ids) => `/automations/${ids.action}`,
    auth: 'admin',
    fields: ['name', 'description', 'enabled', 'trigger', 'threshold', 'action', 'custom.note'],
    valid: () => ({ name: 'Fuzz target', trigger: 'custom', action: 'custom' }),
  },
  { method: 'post', path: (ids) => `/automations/${ids.action}/run`, auth: 'admin', fields: ['licenseKey'] },
  { method: 'post', path: (ids) => `/automations/${ids.action}/disable`, auth: 'admin', fields: [] },
  { method: 'post', path: (ids) => `/automations/${ids.action}/enable`, auth: 'admin', fields: [] },
  // The settings pages' forms (JSON reaches the same parser's result).
  {
    method: 'post',
    path: () => '/settings/admins',
    auth: 'admin',
    fields: ['userId'],
    valid: () => ({ userId: 'fuzz-admin' }),
  },
  {
    method: 'post',
    path: () => '/settings/admins/remove',
    auth: 'admin',
    fields: ['userId'],
    valid: () => ({ userId: 'fuzz-admin' }),
  },
  { method: 'post', path: () => '/settings/two-factor/enable', auth: 'admin', fields: ['code'] },
  { method: 'post', path: () => '/settings/two-factor/disable', auth: 'admin', fields: ['code', 'password'] },
  {
    method: 'post',
    path: () => '/settings/tokens',
    auth: 'admin',
    fields: ['label', 'lifetime'],
    valid: () => ({ label: 'Fuzz', lifetime: '1d' }),
  },
  // The notification channel forms: the test first (no channel is set up yet, so it sends nothing anywhere).
  { method: 'post', path: (ids) => `/webhooks/channels/${ids.email}/test`, auth: 'admin', fields: ['recipient'] },
  { method: 'post', path: (ids) => `/webhooks/channels/${ids.sms}/test`, auth: 'admin', fields: ['recipient'] },
  { method: 'post', path: (ids) => `/webhooks/channels/${ids.telegram}/test`, auth: 'admin', fields: ['recipient'] },
  {
    method: 'post',
    path: (ids) => `/webhooks/channels/${ids.email}`,
    auth: 'admin',
    fields: ['enabled', 'host', 'port', 'secure', 'user', 'pass', 'clearPass', 'from', 'to'],
    valid: () => ({ host: 'smtp.example.com', port: '587', from: 'a@example.com' }),
  },
  {
    method: 'post',
    path: (ids) => `/webhooks/channels/${ids.sms}`,
    auth: 'admin',
    fields: ['enabled', 'accountSid', 'authToken', 'clearAuthToken', 'from', 'to'],
  },
  {
    method: 'post',
    path: (ids) => `/webhooks/channels/${ids.telegram}`,
    auth: 'admin',
    fields: ['enabled', 'botToken', 'clearBotToken', 'chatId'],
  },
  // Last: they may turn panic mode on or change the limits, which the earlier routes would meet.
  { method: 'post', path: () => '/settings/panic', auth: 'admin', fields: ['enabled'] },
  {
    method: 'post',
    path: () => '/settings/rate-limit',
    auth: 'admin',
    fields: ['enabled', 'max', 'windowSeconds', 'userMax', 'userWindowSeconds'],
  },
  { method: 'put', path: () => '/api/admin/config', auth: 'admin', fields: ['security', 'rateLimit'] },
  { method: 'post', path: () => '/api/admin/panic', auth: 'admin', fields: ['enabled'] },
];

let t: TestApp;
let admin: Session;
let customerSession: Session;
let ids: Ids;

beforeAll(async () => {
  t = await buildTestApp({ env: { STRIPE_WEBHOOK_SECRET: 'whsec_fuzz' } });
  admin = await t.admin();
  const product = await t.createProduct();
  const customer = await t.createCustomer();
  const license = await t.createLicense({ product: product._id, customer: customer._id, ipLimit: 2 });
  // A customer of their own (the admin routes may change the one above) with a license that is in use.
  const signedIn = await t.customer();
  customerSession = signedIn.session;
  const customerLicense = await t.createLicense({
    product: product._id,
    customer: signedIn.customer._id,
    ipLimit: 100,
  });
  await t.http.post('/api/license/validate').send({ key: customerLicense.key, ip: '10.0.0.1' });
  const action = await t.http.post('/api/automated-actions').set(admin.headers).send(validAction);
  expect(action.status).toBe(201);
  const endpoint = await t.http
    .post('/api/webhooks/endpoints')
    .set(admin.headers)
    .send({ url: 'https://93.184.215.14/fuzz' });
  expect(endpoint.status).toBe(201);
  const machine = await t.http
    .post('/api/license/machines/activate')
    .send({ key: license.key, fingerprint: 'fuzz-machine' });
  expect(machine.status).toBe(201);
  const entitlement = await t.http.post('/api/entitlements').set(admin.headers).send({ code: 'FUZZ_E', name: 'Fuzz' });
  expect(entitlement.status).toBe(201);
  const policy = await t.http
    .post('/api/policies')
    .set(admin.headers)
    .send({ productId: product._id, name: 'Fuzz', entitlements: ['FUZZ_E'] });
  expect(policy.status).toBe(201);
  const release = await t.http
    .post(`/api/products/${product._id}/releases`)
    .set(admin.headers)
    .send({ version: '1.0.0' });
  expect(release.status).toBe(201);
  ids = {
    release: release.body.release._id,
    machine: machine.body.machine._id,
    product: product._id,
    customer: customer._id,
    license: license._id,
    licenseKey: license.key,
    action: action.body.action._id,
    customerLicense: customerLicense._id,
    endpoint: endpoint.body.endpoint._id,
    email: 'email',
    sms: 'sms',
    telegram: 'telegram',
    policy: policy.body.policy._id,
    entitlement: entitlement.body.entitlement._id,
    entitlementCode: 'FUZZ_E',
  };
});
afterAll(async () => {
  await t?.close();
});

describe('the fuzz table (license service)', () => {
  it('covers every route whose OpenAPI declaration has a JSON request body', async () => {
    const document = await t.http.get('/openapi.json');
    expect(document.status).toBe(200);
    const declared = routesWithRequestBody(document.body);
    expect(declared.length).toBeGreaterThan(10);
    const placeholders: Ids = {
      product: '{}',
      customer: '{}',
      license: '{}',
      licenseKey: '{}',
      action: '{}',
      customerLicense: '{}',
      email: '{}',
      sms: '{}',
      telegram: '{}',
      endpoint: '{}',
      machine: '{}',
      policy: '{}',
      entitlement: '{}',
      entitlementCode: '{}',
      release: '{}',
    };
    const fuzzed = new Set(routes.map((route) => normalisedRoute(route.method, route.path(placeholders))));
    expect(declared.filter((route) => !fuzzed.has(route))).toEqual([]);
  });
});

describe('arbitrary JSON bodies never answer 5xx (license service)', () => {
  it.each(
    routes.map((route) => ({
      ...route,
      name: `${route.method.toUpperCase()} ${route.path({ product: ':product', customer: ':customer', license: ':id', licenseKey: ':key', action: ':id', customerLicense: ':licenseId', email: 'email', sms: 'sms', telegram: 'telegram', endpoint: ':id', machine: ':machineId', policy: ':id', entitlement: ':id', entitlementCode: 'CODE', release: ':id' })}`,
    })),
  )(
    '$name',
    async (route) => {
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(jsonBodies(route.fields, route.valid?.(ids)), async (body) => {
          const request = t.http[route.method](route.path(ids)).set('Content-Type', 'application/json');
          if (route.auth === 'admin') request.set(admin.headers);
          if (route.auth === 'customer') request.set(customerSession.headers);
          const response = await request.send(JSON.stringify(body));
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status >= 500)
            failures.push(
              `${response.status} ${JSON.stringify(response.body)} for ${JSON.stringify(body).slice(0, 300)}`,
            );
          return response.status < 500;
        }),
        { numRuns: fuzzRuns(route.fields), endOnFailure: true },
      );
      if (process.env.FUZZ_REPORT) console.log(route.name, Object.fromEntries(statuses));
      expect(failures).toEqual([]);
    },
    120_000,
  );
});
