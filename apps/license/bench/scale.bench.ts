/**
 * The license half of `npm run bench:scale` (issues 16 and 57): 20 products, 10,000 customers,
 * 1,000,000 licenses and 50,000,000 usage records over 90 days, validated by 25,000 of the
 * licenses (with audit entries, transactions, automations and webhook deliveries) in the
 * PostgreSQL database `bench_scale_license`, then the admin's and a customer's pages timed
 * (median, p90 and p95 of 20 sequential requests after 2 warm-ups) against their targets. Exits 1
 * when a target is missed. BENCH_USAGE_RECORDS changes the 50,000,000.
 *
 * The seed is kept between runs (the database's comment marks it complete); BENCH_RESEED=1 makes
 * it again. BENCH_DATABASE_URL (or DATABASE_URL) names the server; BENCH_RUNS the requests per page.
 */
import os from 'node:os';
import pg from 'pg';
import {
  markSeeded,
  prepareDatabase,
  migrationsFingerprint,
  printTable,
  secondsSince,
  serverUrl,
  timePage,
  withDatabase,
  bulkSession,
  type Timing,
} from '../../../scripts/bench/page-timing.js';
import { migrationsFolder, startBenchApp } from './bench-app.js';
import { activeLicenseNumber, customerUserId, licenseId, productId, seedLicenseData, type SeedSizes } from './seed.js';

const databaseName = 'bench_scale_license';
const sizes: SeedSizes = {
  products: 20,
  customers: 10_000,
  licenses: 1_000_000,
  usageRecords: Number(process.env.BENCH_USAGE_RECORDS ?? 50_000_000),
  usageActiveLicenses: 25_000,
  auditEntries: 20_000,
  transactions: 50_000,
  automations: 20,
  automationRuns: 20_000,
  webhookDeliveries: 50_000,
};
const marker = `bench-scale license seed v2: ${JSON.stringify(sizes)}, migrations ${migrationsFingerprint(migrationsFolder)}`;

async function main(): Promise<void> {
  console.log(
    `license bench:scale — ${os.cpus().length} cores, Node ${process.version}, load ${os
      .loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  const prepared = await prepareDatabase(admin, databaseName, marker).finally(() => admin.end());
  const app = await startBenchApp(prepared.url);
  if (prepared.seeded) {
    console.log(`${databaseName} already holds the seed; BENCH_RESEED=1 seeds it again`);
  } else {
    console.log('seeding ...');
    const started = performance.now();
    await bulkSession(app.database.pool, async (client) => {
      await seedLicenseData(client, sizes, console.log);
      await client.query('ANALYZE');
    });
    await markSeeded(app.database.pool, databaseName, marker);
    console.log(`seeded in ${secondsSince(started)} s (ANALYZE included)`);
  }
  await app.database.pool.query('ANALYZE');

  // Active license 3 is customer 23's (seed.ts: 1 + (n / 5) % customers), who can sign in.
  const validated = activeLicenseNumber(3, sizes.licenses);
  const owner = 1 + (Math.floor(validated / 5) % sizes.customers);
  const adminHeaders = await app.signIn(app.adminId);
  const customerHeaders = await app.signIn(customerUserId(owner));
  const at = (path: string) => `${app.baseUrl}${path}`;
  const timings: Timing[] = [
    await timePage('license dashboard / (admin)', at('/'), adminHeaders, { target: 100 }),
    await timePage('GET /api/products?includeCounts=true', at('/api/products?includeCounts=true'), adminHeaders, {
      target: 100,
    }),
    await timePage('GET /api/licenses?limit=50', at('/api/licenses?limit=50'), adminHeaders, { target: 50 }),
    await timePage('GET /api/export/summary/pdf', at('/api/export/summary/pdf'), adminHeaders, { target: 300 }),
    // "Keep": a few ms today (issue 16); the target is there to notice a regression, with room for a loaded machine.
    await timePage('GET /api/audit', at('/api/audit'), adminHeaders, { target: 50 }),
    // Wave 4 insight: the daily rollups (decisions.md, "Usage at scale": <= 100 ms).
    await timePage('GET /api/analytics/validations', at('/api/analytics/validations'), adminHeaders, { target: 100 }),
    await timePage(
      'GET /api/analytics/validations?productId=',
      at(`/api/analytics/validations?productId=${productId(1 + (validated % sizes.products))}`),
      adminHeaders,
      { target: 100 },
    ),
    await timePage('GET /api/analytics/validations/csv', at('/api/analytics/validations/csv'), adminHeaders, {
      target: 100,
    }),
    await timePage(
      'GET /api/licenses/:id/analytics',
      at(`/api/licenses/${licenseId(validated)}/analytics`),
      adminHeaders,
      { target: 100 },
    ),
    await timePage('license page /licenses/:id (admin)', at(`/licenses/${licenseId(validated)}`), adminHeaders, {
      target: 100,
    }),
    await timePage('customer GET /api/customer/licenses/stats', at('/api/customer/licenses/stats'), customerHeaders, {
      target: 50,
    }),
    await timePage(
      'customer GET /api/customer/licenses/:id/usage',
      at(`/api/customer/licenses/${licenseId(validated)}/usage`),
      customerHeaders,
      { target: 50 },
    ),
  ];
  const ok = printTable(
    `license service, PostgreSQL, ${sizes.licenses.toLocaleString('en')} licenses, ` +
      `${sizes.usageRecords.toLocaleString('en')} usage records (20 after 2 warm-ups)`,
    timings,
  );
  await app.close();
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
