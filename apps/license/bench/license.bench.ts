/**
 * `npm run bench:license`: POST /api/license/validate under autocannon (32 connections) against
 * PostgreSQL, beside a bare Express route in the same process, first with 10,000 licenses, then
 * with 1,000,000 licenses and 5,000,000 usage records. Prints req/s, p50, p99, the ratio to the
 * bare route, and checks that every validation was recorded.
 *
 * DATABASE_URL (or LICENSE_DATABASE_URL) picks the server; the bench database `license_bench`
 * on it is dropped and created afresh. BENCH_REQUESTS sets the requests per measurement.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import pg from 'pg';
import { loadConfig } from '@app/config';
import { openDatabase, runMigrations, type Database } from '@app/db';
import { createLogger } from '@app/http';
import { createSettingsStore } from '@app/settings';
import { createApp } from '../src/app.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from '../src/runtime-config/runtime-config.schema.js';

const connections = 32;
const requestsPerRun = Number(process.env.BENCH_REQUESTS ?? 40_000);
const hotLicenses = 10_000;
const bigLicenses = 1_000_000;
const bigUsage = 5_000_000;
const newIpShare = 0.2;

const serverUrl = process.env.LICENSE_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const benchName = 'license_bench';

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function freshDatabase(): Promise<Database> {
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${benchName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${benchName}`);
  await admin.end();
  const database = await openDatabase({ url: withDatabase(serverUrl, benchName), maxConnections: 20 });
  await runMigrations(database.db, path.resolve(import.meta.dirname, '../drizzle'));
  return database;
}

async function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Keys `BENCH-<n>` of licenses 1..count, one product, unlimited IPs so new IPs are kept. */
async function seedLicenses(pool: pg.Pool, from: number, to: number): Promise<void> {
  await pool.query(`INSERT INTO products (id, name, license_prefix) VALUES ('00000000-0000-4000-8000-000000000001', 'Bench', 'BENCH')
    ON CONFLICT DO NOTHING`);
  await pool.query(
    `INSERT INTO licenses (key, product_id, license_type, expires_at, ip_limit, hwid_limit)
     SELECT 'BENCH-' || n || '-' || md5(n::text), '00000000-0000-4000-8000-000000000001', 'fixed', now() + interval '365 days', 0, 0
     FROM generate_series($1::int, $2::int) AS n`, [from, to]);
}

async function seedUsage(pool: pg.Pool, count: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('CREATE TEMP TABLE bench_ids AS SELECT row_number() OVER (ORDER BY id) AS n, id FROM licenses');
    await client.query('CREATE INDEX ON bench_ids (n)');
    const { rows } = await client.query<{ total: number }>('SELECT count(*) AS total FROM bench_ids');
    const total = rows[0]!.total;
    await client.query(
      `INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at)
       SELECT b.id, '172.16.' || (g % 250) || '.' || (g % 199), 'hw-' || (g % 1000),
         CASE WHEN g % 20 = 0 THEN 'blocked' WHEN g % 25 = 0 THEN 'invalid' ELSE 'success' END,
         CASE WHEN g % 20 = 0 THEN 'IP limit exceeded' WHEN g % 25 = 0 THEN 'License expired' END,
         now() - (g % 90) * interval '1 day' - (g % 86400) * interval '1 second'
       FROM generate_series(1, $1::int) AS g JOIN bench_ids b ON b.n = (g % $2::int) + 1`, [count, total]);
  } finally {
    client.release();
  }
}

interface Measured { rps: number; p50: number; p99: number; total: number; non2xx: number; errors: number }

async function drive(url: string, makeBody: () => string, amount: number): Promise<Measured> {
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url, connections, amount, method: 'POST',
    headers: { 'content-type': 'application/json' },
    // setupRequest is autocannon's per-request hook (missing from its type declarations).
    requests: [{ method: 'POST', setupRequest: (request: Record<string, unknown>) => ({ ...request, body: makeBody() }) }],
  } as unknown as Parameters<typeof autocannon>[0]);
  return {
    // Completed requests over the wall time (autocannon's own average is per whole second).
    rps: result.requests.total / (Number(process.hrtime.bigint() - started) / 1e9), p50: result.latency.p50, p99: result.latency.p99,
    total: result.requests.total, non2xx: result.non2xx, errors: result.errors + result.timeouts,
  };
}

function validationBodies(keys: string[]): () => string {
  let counter = 0;
  return () => {
    counter += 1;
    const index = Math.floor(Math.random() * keys.length);
    // Known IPs: one of four per license; new IPs: never seen before.
    const ip = Math.random() < newIpShare
      ? `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`
      : `192.168.${index % 250}.${(index % 4) + 1}`;
    return JSON.stringify({ key: keys[index], ip, hwid: `hw-${index % 97}` });
  };
}

const fmt = (m: Measured) => `${m.rps.toFixed(0).padStart(7)} req/s   p50 ${String(m.p50).padStart(3)} ms   p99 ${String(m.p99).padStart(3)} ms`;

async function usageCount(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*) AS n FROM usage_records');
  return rows[0]!.n;
}

/** The child process: the license app and the bare route, each on its own port. */
async function serve(): Promise<void> {
  const database = await openDatabase({ url: withDatabase(serverUrl, benchName), maxConnections: Number(process.env.BENCH_POOL ?? 20) });
  const { pool } = database;
  // The bench drives from one address, so the public per-IP limit is off; request logs are at warn.
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', SESSION_SECRET: 'bench', LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'false', ADMIN_IDS: '' });
  const settings = await createSettingsStore({ pool, namespace: licenseSettingsNamespace, schema: licenseSettingsSchema });
  const oauth = { authorizationURL: 'http://127.0.0.1:1/a', tokenURL: 'http://127.0.0.1:1/t', userInfoURL: 'http://127.0.0.1:1/u',
    clientID: 'bench', clientSecret: 'bench', scope: 'openid', idField: 'id', usernameField: 'username' };
  const licenseApp = await createApp({ config, database, settings, oauth, publicUrl: 'http://127.0.0.1', logger: createLogger({ level: 'warn' }) });
  const service = await listen(licenseApp.app);
  const bare = express();
  bare.use(express.json());
  bare.post('/bare', (req, res) => { res.json({ success: true, valid: true, echo: req.body.key }); });
  const bareServer = await listen(bare);
  process.send!({ service: service.url, bare: bareServer.url });
  process.once('disconnect', () => { setTimeout(() => process.exit(0), 100); });
}

async function startServers(): Promise<{ service: string; bare: string; stop(): void }> {
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, BENCH_ROLE: 'server' }, execArgv: ['--import', 'tsx', ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : [])] });
  const [urls] = await once(child, 'message') as [{ service: string; bare: string }];
  return { ...urls, stop: () => { child.disconnect(); } };
}

async function main(): Promise<void> {
  console.log(`license bench: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ` +
    `${connections} connections, ${requestsPerRun} requests per measurement, ${(newIpShare * 100).toFixed(0)}% new IPs`);
  const database = await freshDatabase();
  const { pool } = database;
  await seedLicenses(pool, 1, hotLicenses);
  await pool.query('VACUUM ANALYZE');
  const { rows } = await pool.query<{ key: string }>('SELECT key FROM licenses ORDER BY key');
  const keys = rows.map((row) => row.key);

  const servers = await startServers();

  const validateUrl = `${servers.service}/api/license/validate`;
  const bodies = validationBodies(keys);
  // Warm-up: JIT, prepared statements, connection pool, caches.
  await drive(`${servers.bare}/bare`, bodies, 3000);
  await drive(validateUrl, bodies, 3000);

  const check = async (before: number, m: Measured, label: string) => {
    const recorded = (await usageCount(pool)) - before;
    const answered = m.total;
    console.log(`  ${label}: ${answered} answered (${m.non2xx} non-2xx, ${m.errors} errors), ${recorded} usage records written` +
      (recorded === answered ? ' — every request recorded' : ' — MISMATCH'));
    return recorded === answered;
  };

  console.log(`\n1) ${hotLicenses.toLocaleString('en')} licenses`);
  const bare1 = await drive(`${servers.bare}/bare`, bodies, requestsPerRun);
  let before = await usageCount(pool);
  const small = await drive(validateUrl, bodies, requestsPerRun);
  const ok1 = await check(before, small, 'validate');
  console.log(`  bare Express route      ${fmt(bare1)}`);
  console.log(`  POST /api/license/validate ${fmt(small)}   ratio ${(small.rps / bare1.rps).toFixed(2)}`);

  if (process.env.BENCH_LARGE === '0') {
    servers.stop();
    await database.close();
    if (!ok1) process.exitCode = 1;
    return;
  }

  console.log(`\n2) growing to ${bigLicenses.toLocaleString('en')} licenses and ${bigUsage.toLocaleString('en')} usage records ...`);
  const started = Date.now();
  await seedLicenses(pool, hotLicenses + 1, bigLicenses);
  await seedUsage(pool, bigUsage);
  await pool.query('VACUUM ANALYZE');
  console.log(`  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s; usage_records holds ${(await usageCount(pool)).toLocaleString('en')} rows`);
  await drive(validateUrl, bodies, 3000);
  const bare2 = await drive(`${servers.bare}/bare`, bodies, requestsPerRun);
  before = await usageCount(pool);
  const big = await drive(validateUrl, bodies, requestsPerRun);
  const ok2 = await check(before, big, 'validate');
  console.log(`  bare Express route      ${fmt(bare2)}`);
  console.log(`  POST /api/license/validate ${fmt(big)}   ratio ${(big.rps / bare2.rps).toFixed(2)}`);

  // The same load with keys spread over all 1,000,000 licenses (a colder cache).
  const allKeys = (await pool.query<{ key: string }>('SELECT key FROM licenses')).rows.map((row) => row.key);
  before = await usageCount(pool);
  const spread = await drive(validateUrl, validationBodies(allKeys), requestsPerRun);
  const ok3 = await check(before, spread, 'validate, keys over all licenses');
  console.log(`  POST /api/license/validate (keys over all ${bigLicenses.toLocaleString('en')}) ${fmt(spread)}`);

  const drop = 1 - big.rps / small.rps;
  console.log(`\nthroughput change with the large database: ${(-drop * 100).toFixed(1)}% (target: a drop of at most 10%)`);
  console.log(`ratio to the bare route: ${(small.rps / bare1.rps).toFixed(2)} and ${(big.rps / bare2.rps).toFixed(2)} (target 0.5 or more)`);

  servers.stop();
  await database.close();
  if (!(ok1 && ok2 && ok3)) process.exitCode = 1;
}

(process.env.BENCH_ROLE === 'server' ? serve() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
