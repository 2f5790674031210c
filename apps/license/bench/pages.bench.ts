/**
 * `npm run bench:pages` (issue 14): every admin-console page on PostgreSQL with a realistic
 * admin's data — 10,000 licenses, 20 products, 2,000 customers, 200,000 usage records, audit
 * entries, transactions, automations and webhook deliveries — timed as the median and p90 of 20
 * sequential requests after 2 warm-ups; exits 1 when a page takes more than 150 ms.
 *
 * The pages are found in the app's own route declarations (its OpenAPI document): every GET
 * tagged `pages` that answers HTML, so pages added later are timed without changing this file.
 * Path parameters are filled with a seeded id of the kind the path names (`/licenses/{id}` a
 * license, `/my-licenses/{licenseId}` a license of the signed-in customer, ...); pages whose
 * parameters cannot be filled are listed as skipped. Each page is requested as the admin, and as
 * a customer when the admin is not answered 200 (the customer portal's pages). The list pages are
 * timed again with typical filters.
 *
 * Database `bench_pages_license` on BENCH_DATABASE_URL (or DATABASE_URL, default the local
 * server); the seed is kept between runs, BENCH_RESEED=1 makes it again.
 */
import os from 'node:os';
import pg from 'pg';
import {
  bulkSession,
  markSeeded,
  prepareDatabase,
  migrationsFingerprint,
  printTable,
  secondsSince,
  serverUrl,
  timePage,
  withDatabase,
  type Timing,
} from '../../../scripts/bench/page-timing.js';
import { migrationsFolder, startBenchApp } from './bench-app.js';
import {
  automationId,
  customerId,
  customerUserId,
  licenseId,
  productId,
  seedLicenseData,
  webhookDeliveryId,
  type SeedSizes,
} from './seed.js';

const databaseName = 'bench_pages_license';
const targetMs = 150;
const sizes: SeedSizes = {
  products: 20,
  customers: 2_000,
  licenses: 10_000,
  usageRecords: 200_000,
  auditEntries: 20_000,
  transactions: 5_000,
  automations: 12,
  automationRuns: 2_000,
  webhookDeliveries: 5_000,
};
const marker = `bench-pages license seed v1: ${JSON.stringify(sizes)}, migrations ${migrationsFingerprint(migrationsFolder)}`;

/** The seeded id of the kind a path parameter names; undefined when the benchmark knows none. */
async function idFor(pool: pg.Pool, path: string, parameter: string): Promise<string | undefined> {
  const section = path.split('/')[1] ?? '';
  const kind = parameter === 'id' ? section : parameter.replace(/Id$/, '');
  // License 1 belongs to customer 1, who signs in for the customer portal's pages.
  if (/^(my-)?licen[cs]es?$/.test(kind)) return licenseId(1);
  if (/^products?$/.test(kind)) return productId(1);
  if (/^customers?$/.test(kind)) return customerId(1);
  if (/^(automations?|automated-actions?|actions?)$/.test(kind)) return automationId(1);
  if (/^(deliver(y|ies)|webhook-deliveries)$/.test(kind)) return webhookDeliveryId(1);
  // Tables other helpers add (webhook endpoints, audit entries, ...): the newest row of a table named like the section.
  const table = {
    audit: 'audit_logs',
    'audit-log': 'audit_logs',
    webhooks: 'webhook_endpoints',
    endpoints: 'webhook_endpoints',
    channels: 'notification_channels',
  }[kind];
  if (!table) return undefined;
  try {
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id::text AS id FROM ${table} ORDER BY created_at DESC LIMIT 1`,
    );
    return rows[0]?.id;
  } catch {
    return undefined;
  }
}

interface Page {
  path: string;
  address?: string;
  skipped?: string;
}

/** Every GET page the app declares (tagged `pages`, answering HTML), its parameters filled. */
async function declaredPages(pool: pg.Pool, document: Record<string, unknown>): Promise<Page[]> {
  const paths = document.paths as Record<
    string,
    Record<string, { tags?: string[]; responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
  const pages: Page[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    const get = operations.get;
    if (!get?.tags?.includes('pages')) continue;
    if (!get.responses?.['200']?.content?.['text/html']) {
      pages.push({ path, skipped: 'answers no HTML page' });
      continue;
    }
    let address = path;
    let skipped: string | undefined;
    for (const [, parameter] of path.matchAll(/\{([^}]+)\}/g)) {
      const id = await idFor(pool, path, parameter!);
      if (id === undefined) {
        skipped = `no seeded id for {${parameter}}`;
        break;
      }
      address = address.replace(`{${parameter}}`, encodeURIComponent(id));
    }
    pages.push(skipped ? { path, skipped } : { path, address });
  }
  return pages;
}

/** The list pages again, with the filters an admin uses. */
const filteredPages = [
  '/licenses?state=active',
  '/licenses?state=expired',
  '/licenses?state=suspended',
  '/licenses?type=trial',
  `/licenses?product=${productId(3)}`,
  `/licenses?customer=${customerId(1)}`,
  '/licenses?expiresWithinDays=30',
  '/licenses?search=PRD1-A',
  '/licenses?search=zzzz',
  '/licenses?page=40',
  `/licenses?state=active&product=${productId(2)}&type=fixed`,
  '/products?q=Product%201',
  '/customers?q=Ada',
  '/customers?q=customer42%40example.com',
  '/customers?page=20',
];

async function main(): Promise<void> {
  console.log(
    `license bench:pages — ${os.cpus().length} cores, Node ${process.version}, load ${os
      .loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  const prepared = await prepareDatabase(admin, databaseName, marker).finally(() => admin.end());
  const app = await startBenchApp(prepared.url);
  const { pool } = app.database;
  if (prepared.seeded) {
    console.log(`${databaseName} already holds the seed; BENCH_RESEED=1 seeds it again`);
  } else {
    const started = performance.now();
    await bulkSession(pool, async (client) => {
      await seedLicenseData(client, sizes, console.log);
      await client.query('ANALYZE');
    });
    await markSeeded(pool, databaseName, marker);
    console.log(`seeded in ${secondsSince(started)} s (ANALYZE included)`);
  }
  await pool.query('ANALYZE');

  const adminHeaders = await app.signIn(app.adminId);
  const customerHeaders = await app.signIn(customerUserId(1));
  const pages = await declaredPages(pool, app.app.openApiDocument());
  const timings: Timing[] = [];
  const skipped: string[] = pages.filter((page) => page.skipped).map((page) => `${page.path} (${page.skipped})`);
  const time = async (label: string, address: string) => {
    let timing = await timePage(label, `${app.baseUrl}${address}`, adminHeaders, {
      target: targetMs,
      runs: 1,
      warmups: 0,
    });
    let who = 'admin';
    if (timing.status !== 200) {
      const asCustomer = await timePage(label, `${app.baseUrl}${address}`, customerHeaders, {
        target: targetMs,
        runs: 1,
        warmups: 0,
      });
      if (asCustomer.status === 200) who = 'customer';
      else return skipped.push(`${label} (answers ${timing.status} to the admin, ${asCustomer.status} to a customer)`);
    }
    timing = await timePage(label, `${app.baseUrl}${address}`, who === 'admin' ? adminHeaders : customerHeaders, {
      target: targetMs,
    });
    timings.push({
      ...timing,
      note: [who === 'customer' ? 'as a customer' : '', timing.note ?? ''].filter(Boolean).join('; ') || undefined,
    });
  };
  for (const page of pages) if (page.address) await time(page.path, page.address);
  for (const address of filteredPages) await time(address, address);

  const ok = printTable(
    `license admin console, PostgreSQL, ${sizes.licenses.toLocaleString('en')} licenses, ` +
      `${sizes.usageRecords.toLocaleString('en')} usage records (median of 20 after 2 warm-ups; target ${targetMs} ms)`,
    timings,
  );
  if (skipped.length > 0) console.log(`\nnot timed:\n${skipped.map((line) => `  ${line}`).join('\n')}`);
  await app.close();
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
