import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  automationId,
  customerId,
  customerUserId,
  licenseId,
  productId,
  seedLicenseData,
  type SeedSizes,
} from '../bench/seed.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// The page benchmarks' data set, small: its rows must be rows the app reads and answers as it
// answers its own (every JSON answer here is held to its route's response schema).
const sizes: SeedSizes = {
  products: 4,
  customers: 20,
  licenses: 300,
  usageRecords: 3_000,
  auditEntries: 200,
  transactions: 50,
  automations: 5,
  automationRuns: 40,
  webhookDeliveries: 30,
};

let t: TestApp;
let admin: Session;
const keyOf = async (n: number) =>
  (await t.database.pool.query<{ key: string }>('SELECT key FROM licenses WHERE id = $1', [licenseId(n)])).rows[0]!.key;

beforeAll(async () => {
  t = await buildTestApp();
  await seedLicenseData(t.database.pool, sizes);
  admin = await t.admin();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe("the benchmarks' seed", () => {
  it('makes the rows it was asked for, with the ids the benchmarks put in addresses', async () => {
    const { rows } = await t.database.pool.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM products) AS products, (SELECT count(*)::int FROM customers) AS customers,
              (SELECT count(*)::int FROM licenses) AS licenses, (SELECT count(*)::int FROM usage_records) AS usage,
              (SELECT count(*)::int FROM audit_logs WHERE user_id LIKE 'bench-admin%') AS audit, (SELECT count(*)::int FROM webhook_deliveries) AS deliveries`,
    );
    expect(rows[0]).toEqual({ products: 4, customers: 20, licenses: 300, usage: 3_000, audit: 200, deliveries: 30 });
    for (const path of [
      `/api/products/${productId(1)}`,
      `/api/customers/${customerId(1)}`,
      `/api/licenses/${licenseId(6)}`,
      `/api/automated-actions/${automationId(1)}`,
    ]) {
      const res = await t.http.get(path).set(admin.headers);
      expect(res.status, path).toBe(200);
    }
  });

  it("gives keys in the app's format that validate as their state says", async () => {
    const key = await keyOf(6);
    expect(key).toMatch(/^PRD\d+-[A-Za-z0-9]{24}$/);
    // License 6: fixed, active, expiring next year, seen from two IPs and one hardware id.
    const valid = await t.http.post('/api/license/validate').send({
      key,
      ip: '203.0.113.6',
      hwid: (
        await t.database.pool.query<{ hw: string }>('SELECT used_hwids[1] AS hw FROM licenses WHERE id = $1', [
          licenseId(6),
        ])
      ).rows[0]!.hw,
    });
    expect(valid.status).toBe(200);
    expect(valid.body.valid).toBe(true);
    // License 1 is suspended, license 3 revoked.
    const suspended = await t.http.post('/api/license/validate').send({ key: await keyOf(1), ip: '203.0.113.1' });
    expect(suspended.body.error ?? suspended.body.message).toMatch(/suspended/i);
    const revoked = await t.http.post('/api/license/validate').send({ key: await keyOf(3), ip: '203.0.113.1' });
    expect(revoked.body.error ?? revoked.body.message).toMatch(/revoked/i);
  });

  it("answers the admin's lists and exports, and a customer's portal, on the seeded rows", async () => {
    for (const path of [
      '/api/licenses?limit=50',
      '/api/products?includeCounts=true',
      '/api/customers',
      '/api/audit',
      '/api/automated-actions',
      '/api/webhooks/deliveries',
      '/api/export/summary/pdf',
      '/',
      '/licenses',
      '/licenses?state=suspended',
      `/licenses/${licenseId(6)}`,
      `/products/${productId(2)}`,
      `/customers/${customerId(1)}`,
    ]) {
      const res = await t.http.get(path).set(admin.headers);
      expect(res.status, path).toBe(200);
    }
    const list = await t.http.get('/api/licenses?limit=50').set(admin.headers);
    expect(list.body.total ?? list.body.pagination?.total).toBe(300);
    const customer = await t.signIn(customerUserId(1));
    const stats = await t.http.get('/api/customer/licenses/stats').set(customer.headers);
    expect(stats.status).toBe(200);
    const usage = await t.http.get(`/api/customer/licenses/${licenseId(1)}/usage`).set(customer.headers);
    expect(usage.status).toBe(200);
  });
});
