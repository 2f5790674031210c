/**
 * `npm run bench:license`: POST /api/license/validate under autocannon (32 connections) against
 * PostgreSQL, beside a bare Express route in the same process, first with 10,000 licenses, then
 * with 1,000,000 licenses and 5,000,000 usage records. Prints req/s, p50, p99, the ratio to the
 * bare route, and checks that every validation was recorded.
 *
 * DATABASE_URL (or LICENSE_DATABASE_URL) picks the server; the bench database `license_bench`
 * on it is dropped and created afresh. BENCH_DB=embedded runs on the embedded database instead
 * (PGlite in a temporary folder, in its worker thread inside the app's process, as `npm start`
 * runs it), with the 10,000 licenses only. BENCH_SECONDS sets the seconds per run.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import pg from 'pg';
import { loadConfig } from '@app/config';
import { openDatabase, runMigrations, type Database } from '@app/db';
import { createExpressServer, createLogger, startModules } from '@app/http';
import { createSettingsStore } from '@app/settings';
import { createApp } from '../src/app.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from '../src/runtime-config/runtime-config.schema.js';
import { cpuSeconds, idleShare, machineCpu } from '../../../scripts/bench/cpu-usage.js';
import { benchServerFlags } from '../../../scripts/bench/server-flags.js';
import { settingsTableName } from '../src/runtime-config/settings.table.js';

const connections = 32;
const secondsPerRun = Number(process.env.BENCH_SECONDS ?? 10);
const hotLicenses = 10_000;
const bigLicenses = 1_000_000;
const bigUsage = 5_000_000;
const newIpShare = 0.2;

const serverUrl =
  process.env.LICENSE_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const embedded = process.env.BENCH_DB === 'embedded';
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

async function listen(server: http.Server): Promise<{ url: string; server: http.Server }> {
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
     FROM generate_series($1::int, $2::int) AS n`,
    [from, to],
  );
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
       FROM generate_series(1, $1::int) AS g JOIN bench_ids b ON b.n = (g % $2::int) + 1`,
      [count, total],
    );
  } finally {
    client.release();
  }
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  sent: number;
  non2xx: number;
  errors: number;
}

/** One autocannon run of `seconds` (or of `amount` requests, for warm-ups). */
async function drive(url: string, makeBody: () => string, seconds: number, amount?: number): Promise<Measured> {
  const result = await autocannon({
    url,
    connections,
    ...(amount ? { amount } : { duration: seconds }),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // setupRequest is autocannon's per-request hook (missing from its type declarations).
    requests: [
      { method: 'POST', setupRequest: (request: Record<string, unknown>) => ({ ...request, body: makeBody() }) },
    ],
  } as unknown as Parameters<typeof autocannon>[0]);
  return {
    rps: result.requests.total / (result as unknown as { duration: number }).duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    sent: (result.requests as { sent?: number }).sent ?? result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function validationBodies(keys: string[], extra: Record<string, unknown> = {}): () => string {
  let counter = 0;
  return () => {
    counter += 1;
    const index = Math.floor(Math.random() * keys.length);
    // Known IPs: one of four per license; new IPs: never seen before.
    const ip =
      Math.random() < newIpShare
        ? `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`
        : `192.168.${index % 250}.${(index % 4) + 1}`;
    return JSON.stringify({ key: keys[index], ip, hwid: `hw-${index % 97}`, ...extra });
  };
}

/**
 * CPU used by the server process and by the PostgreSQL client backends serving the bench
 * database, per backend pid (autovacuum workers are left out: they come and go on their own).
 */
async function cpuSnapshot(
  pool: pg.Pool,
  serverPid: number,
): Promise<{ app: number; thread: number; db: Map<number, number> }> {
  const app = cpuSeconds(serverPid);
  const thread = cpuSeconds(serverPid, true);
  // The embedded database runs in a thread of the app's process: its CPU is the app's.
  if (embedded) return { app, thread, db: new Map() };
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
    [benchName],
  );
  return { app, thread, db: new Map(rows.map((row) => [row.pid, cpuSeconds(row.pid)])) };
}

/** PostgreSQL CPU between two snapshots: backends that started in between count from zero. */
function databaseCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

interface Round {
  measured: Measured;
  appUs: number;
  threadUs: number;
  dbUs: number;
  idle: number;
}

/** One measurement with the CPU it cost per request (µs of the app process and of PostgreSQL). */
async function measure(
  pool: pg.Pool,
  serverPid: number,
  url: string,
  makeBody: () => string,
  seconds: number,
): Promise<Round> {
  const before = await cpuSnapshot(pool, serverPid);
  const machineBefore = machineCpu();
  const measured = await drive(url, makeBody, seconds);
  const machineAfter = machineCpu();
  const after = await cpuSnapshot(pool, serverPid);
  return {
    idle: idleShare(machineBefore, machineAfter),
    measured,
    appUs: ((after.app - before.app) / measured.total) * 1e6,
    threadUs: ((after.thread - before.thread) / measured.total) * 1e6,
    dbUs: (databaseCpuBetween(before.db, after.db) / measured.total) * 1e6,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Alternates bare and validate runs so both see the same background load (the machine is
 * shared), and keeps the median of each.
 */
async function compare(
  pool: pg.Pool,
  serverPid: number,
  bareUrl: string,
  validateUrl: string,
  makeBody: () => string,
  rounds = 3,
) {
  const bare: Round[] = [];
  const validate: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    bare.push(await measure(pool, serverPid, bareUrl, makeBody, secondsPerRun));
    validate.push(await measure(pool, serverPid, validateUrl, makeBody, secondsPerRun));
  }
  const pick = (list: Round[]) => {
    const rps = median(list.map((r) => r.measured.rps));
    const chosen = list.find((r) => r.measured.rps === rps)!;
    return { ...chosen, all: list.map((r) => Math.round(r.measured.rps)) };
  };
  return { bare: pick(bare), validate: pick(validate), validateRounds: validate };
}

const fmt = (m: Measured) =>
  `${m.rps.toFixed(0).padStart(7)} req/s   p50 ${String(m.p50).padStart(3)} ms   p99 ${String(m.p99).padStart(3)} ms`;

async function usageCount(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*) AS n FROM usage_records');
  return rows[0]!.n;
}

/**
 * Activation and heartbeat (machines and floating seats) against the bare route, like validate:
 * 2,000 licenses with floating seats (a one-hour lease) and three machines each. Activation of a
 * machine that holds its seat already answers 200 (its name updated), so every round measures
 * the same statement; heartbeats renew the leases.
 */
async function machineRows(
  pool: pg.Pool,
  servers: { service: string; pid: number },
  bareUrl: string,
  keys: string[],
): Promise<void> {
  const floating = keys.slice(0, 2000);
  await pool.query(
    `UPDATE licenses SET heartbeat_seconds = 3600, hwid_limit = 3, used_hwids = '{}' WHERE key = ANY($1)`,
    [floating],
  );
  await pool.query('SELECT count(*) FROM licenses'); // the update is visible before the first request
  const machineBodies =
    (extra: Record<string, unknown> = {}) =>
    () => {
      const index = Math.floor(Math.random() * floating.length);
      return JSON.stringify({
        key: floating[index],
        fingerprint: `machine-${Math.floor(Math.random() * 3)}`,
        ...extra,
      });
    };
  const activateUrl = `${servers.service}/api/license/machines/activate`;
  const heartbeatUrl = `${servers.service}/api/license/machines/heartbeat`;
  // Every machine activated once (201), then the warm-up.
  for (const key of floating) {
    for (let machine = 0; machine < 3; machine += 1) {
      const res = await fetch(activateUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ key, fingerprint: `machine-${machine}` }),
      });
      if (res.status !== 201) throw new Error(`activation answered ${res.status}: ${await res.text()}`);
    }
  }
  await drive(activateUrl, machineBodies({ name: 'Bench machine' }), 2);
  for (const [label, url, makeBody] of [
    ['POST /api/license/machines/activate ', activateUrl, machineBodies({ name: 'Bench machine' })],
    ['POST /api/license/machines/heartbeat', heartbeatUrl, machineBodies()],
  ] as const) {
    const { bare, validate: route, validateRounds } = await compare(pool, servers.pid, bareUrl, url, makeBody);
    const failed = validateRounds.reduce((sum, round) => sum + round.measured.non2xx + round.measured.errors, 0);
    console.log(`\n4) ${label.trim()}, 2,000 floating licenses with 3 machines each`);
    console.log(`  bare Express route          ${fmt(bare.measured)}   (runs: ${bare.all.join(', ')})`);
    console.log(
      `  ${label} ${fmt(route.measured)}   app CPU ${route.appUs.toFixed(0)} µs/req   (runs: ${route.all.join(', ')})`,
    );
    console.log(`  ratio ${(route.measured.rps / bare.measured.rps).toFixed(2)}; ${failed} answers not 2xx`);
    if (failed > 0) process.exitCode = 1;
  }
}

/**
 * Validate with `entitlements: ['PRO', 'SSO']`: every license of row 1 gets a policy granting
 * both (read by the validation batch at each validation), then loses it again so the rows after
 * measure what they did before.
 */
async function entitlementRow(
  pool: pg.Pool,
  keys: string[],
  run: (makeBody: () => string) => Promise<unknown>,
): Promise<void> {
  const policyId = '00000000-0000-4000-8000-000000000002';
  await pool.query(
    `INSERT INTO entitlements (code, name) VALUES ('PRO', 'Pro'), ('SSO', 'Single sign-on') ON CONFLICT DO NOTHING`,
  );
  await pool.query(
    `INSERT INTO policies (id, product_id, name) VALUES ($1, '00000000-0000-4000-8000-000000000001', 'Bench policy') ON CONFLICT DO NOTHING`,
    [policyId],
  );
  await pool.query(
    `INSERT INTO policy_entitlements (policy_id, entitlement_id) SELECT $1, id FROM entitlements ON CONFLICT DO NOTHING`,
    [policyId],
  );
  await pool.query('UPDATE licenses SET policy_id = $1 WHERE key = ANY($2)', [policyId, keys]);
  await pool.query('VACUUM ANALYZE licenses');
  await run(validationBodies(keys, { entitlements: ['PRO', 'SSO'] }));
  await pool.query('UPDATE licenses SET policy_id = NULL WHERE key = ANY($1)', [keys]);
}

/** The child process: the license app and the bare route, each on its own port. */
async function serve(): Promise<void> {
  const dataDir = embedded ? mkdtempSync(path.join(os.tmpdir(), 'license-bench-')) : undefined;
  const database = embedded
    ? await openDatabase({ dataDir: path.join(dataDir!, 'license') })
    : await openDatabase({
        url: withDatabase(serverUrl, benchName),
        maxConnections: Number(process.env.BENCH_POOL ?? 20),
      });
  if (embedded) {
    await runMigrations(database.db, path.resolve(import.meta.dirname, '../drizzle'));
    await seedLicenses(database.pool, 1, hotLicenses);
  }
  const { pool } = database;
  // The bench drives from one address, so the public per-IP limit is off; request logs are at warn.
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    SESSION_SECRET: 'bench',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    ADMIN_IDS: '',
  });
  const settings = await createSettingsStore({
    pool,
    table: settingsTableName,
    namespace: licenseSettingsNamespace,
    schema: licenseSettingsSchema,
  });
  const oauth = {
    authorizationURL: 'http://127.0.0.1:1/a',
    tokenURL: 'http://127.0.0.1:1/t',
    userInfoURL: 'http://127.0.0.1:1/u',
    clientID: 'bench',
    clientSecret: 'bench',
    scope: 'openid',
    idField: 'id',
    usernameField: 'username',
  };
  const licenseApp = await createApp({
    config,
    database,
    settings,
    oauth,
    publicUrl: 'http://127.0.0.1',
    logger: createLogger({ level: 'warn' }),
  });
  await startModules(licenseApp.modules);
  // The app is served as serveGracefully serves it; the bare route as Express's own app.listen would.
  const service = await listen(createExpressServer(licenseApp.app));
  const bare = express();
  bare.use(express.json());
  bare.post('/bare', (req, res) => {
    res.json({ success: true, valid: true, echo: req.body.key });
  });
  const bareServer = await listen(http.createServer(bare));
  // The same bare route served as the app is (a reference row: what serving alone is worth).
  const servedBare = await listen(createExpressServer(bare));
  process.send!({ service: service.url, bare: bareServer.url, servedBare: servedBare.url, databaseUrl: database.url });
  process.once('disconnect', () => {
    if (!dataDir) return void setTimeout(() => process.exit(0), 100);
    // The app first: its webhook dispatcher would otherwise claim deliveries on a closed pool.
    void licenseApp
      .close()
      .then(() => database.close())
      .finally(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
  });
}

async function startServers(): Promise<{
  service: string;
  bare: string;
  servedBare: string;
  databaseUrl: string;
  pid: number;
  stop(): void;
}> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, BENCH_ROLE: 'server' },
    execArgv: [
      ...benchServerFlags(),
      '--import',
      'tsx',
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []),
    ],
  });
  const [urls] = (await once(child, 'message')) as [
    { service: string; bare: string; servedBare: string; databaseUrl: string },
  ];
  return {
    ...urls,
    pid: child.pid!,
    stop: () => {
      child.disconnect();
    },
  };
}

async function main(): Promise<void> {
  console.log(
    `license bench: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average ` +
      `${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}; ${connections} connections, ${secondsPerRun} s per run, ` +
      `${(newIpShare * 100).toFixed(0)}% new IPs; bare and validate runs alternate, medians of 3; ` +
      (embedded ? 'embedded database (PGlite in its worker thread)' : 'PostgreSQL server'),
  );
  let database: Database | undefined;
  let servers: Awaited<ReturnType<typeof startServers>>;
  let pool: pg.Pool;
  if (embedded) {
    // The app's process holds the embedded database; the counts are read through its socket.
    servers = await startServers();
    pool = new pg.Pool({ connectionString: servers.databaseUrl, max: 1 });
  } else {
    database = await freshDatabase();
    pool = database.pool;
    await seedLicenses(pool, 1, hotLicenses);
    servers = await startServers();
  }
  await pool.query('VACUUM ANALYZE');
  const keys = (await pool.query<{ key: string }>('SELECT key FROM licenses ORDER BY key')).rows.map((row) => row.key);

  const bareUrl = `${servers.bare}/bare`;
  const validateUrl = `${servers.service}/api/license/validate`;
  const bodies = validationBodies(keys);
  // Warm-up: JIT, prepared statements, connection pool, caches. The validate route gets 5 s: the
  // embedded database is WebAssembly, which V8 runs first in its baseline tier and moves to its
  // optimizing tier function by function, in the background. On 2 busy cores that takes seconds:
  // after a warm-up of 3,000 requests (about 1 s) the first measured run was the slowest in 5 of 6
  // runs (2,335-2,597 req/s against 2,876-3,931 for the third).
  await drive(bareUrl, bodies, 2);
  await drive(validateUrl, bodies, 5);
  // The warm-up made the machines (one per license): statistics as autovacuum would gather them
  // within its minute. Without them a connection may keep the plan it made for an empty table, a
  // sequential scan of every machine at each batch, which no deployment keeps for long.
  await pool.query('ANALYZE');
  // Requests cut off when the warm-up's time ran out finish on the server before counting starts.
  await new Promise((resolve) => setTimeout(resolve, 500));

  let allRecorded = true;
  const run = async (label: string, makeBody: () => string) => {
    const before = await usageCount(pool);
    const result = await compare(pool, servers.pid, bareUrl, validateUrl, makeBody);
    // Give the requests cut off at the end of each run time to finish on the server.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answered = result.validateRounds.reduce((sum, round) => sum + round.measured.total, 0);
    const sent = result.validateRounds.reduce((sum, round) => sum + round.measured.sent, 0);
    const failed = result.validateRounds.reduce((sum, round) => sum + round.measured.non2xx + round.measured.errors, 0);
    const recorded = (await usageCount(pool)) - before;
    // Every answered request is recorded; requests still in flight when a run ended may be too.
    const everyOne = recorded >= answered && recorded <= sent;
    allRecorded &&= everyOne;
    const { bare, validate } = result;
    console.log(`\n${label}`);
    const idle = (round: Round) => `machine idle ${(round.idle * 100).toFixed(0)}%`;
    console.log(
      `  bare Express route          ${fmt(bare.measured)}   app CPU ${bare.appUs.toFixed(0)} µs/req, request thread ${bare.threadUs.toFixed(0)}, ${idle(bare)}   ` +
        `(runs: ${bare.all.join(', ')})`,
    );
    const databaseCpu = embedded ? ' (database included)' : `, PostgreSQL CPU ${validate.dbUs.toFixed(0)} µs/req`;
    console.log(
      `  POST /api/license/validate  ${fmt(validate.measured)}   app CPU ${validate.appUs.toFixed(0)} µs/req${databaseCpu}, ` +
        `request thread ${validate.threadUs.toFixed(0)}, ${idle(validate)}   ` +
        `(runs: ${validate.all.join(', ')})`,
    );
    console.log(
      `  ratio ${(validate.measured.rps / bare.measured.rps).toFixed(2)}; ${answered} validations answered (${failed} not 2xx), ` +
        `${sent} sent, ${recorded} usage records written${everyOne ? ' — every request recorded' : ' — MISMATCH'}`,
    );
    return result;
  };

  // Reference: the bare route served as the services serve their apps, against the bare route.
  const reference = await compare(pool, servers.pid, bareUrl, `${servers.servedBare}/bare`, bodies);
  console.log('\n0) reference: the bare route served as the services are (createExpressServer)');
  console.log(
    `  bare Express route          ${fmt(reference.bare.measured)}   (runs: ${reference.bare.all.join(', ')})`,
  );
  console.log(
    `  the same, served so         ${fmt(reference.validate.measured)}   (runs: ${reference.validate.all.join(', ')})`,
  );
  console.log(`  ratio ${(reference.validate.measured.rps / reference.bare.measured.rps).toFixed(2)}`);

  const small = await run(`1) ${hotLicenses.toLocaleString('en')} licenses`, bodies);
  await entitlementRow(pool, keys, (makeBody) =>
    run(
      `1b) ${hotLicenses.toLocaleString('en')} licenses of a policy granting PRO and SSO, validate asking for both`,
      makeBody,
    ),
  );
  await machineRows(pool, servers, bareUrl, keys);
  if (process.env.BENCH_LARGE !== '0' && !embedded) {
    console.log(
      `\ngrowing to ${bigLicenses.toLocaleString('en')} licenses and ${bigUsage.toLocaleString('en')} usage records ...`,
    );
    const started = Date.now();
    await seedLicenses(pool, hotLicenses + 1, bigLicenses);
    await seedUsage(pool, bigUsage);
    await pool.query('VACUUM ANALYZE');
    console.log(
      `  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s; usage_records holds ${(await usageCount(pool)).toLocaleString('en')} rows`,
    );
    await drive(validateUrl, bodies, 0, 3000);
    const big = await run(
      `2) ${bigLicenses.toLocaleString('en')} licenses, 5,000,000+ usage records (keys over the same 10,000)`,
      bodies,
    );
    const allKeys = (await pool.query<{ key: string }>('SELECT key FROM licenses')).rows.map((row) => row.key);
    const spread = await run(
      `3) the same database, keys over all ${bigLicenses.toLocaleString('en')} licenses`,
      validationBodies(allKeys),
    );

    const change = (a: number, b: number) => `${((b / a - 1) * 100).toFixed(1)}%`;
    const ratio = (r: typeof small) => r.validate.measured.rps / r.bare.measured.rps;
    console.log(
      `\nthroughput change 1) → 2): ${change(small.validate.measured.rps, big.validate.measured.rps)} raw, ` +
        `${change(ratio(small), ratio(big))} relative to the bare route measured alongside; ` +
        `CPU per validation ${(small.validate.appUs + small.validate.dbUs).toFixed(0)} → ${(big.validate.appUs + big.validate.dbUs).toFixed(0)} µs`,
    );
    console.log(
      `throughput change 1) → 3): ${change(small.validate.measured.rps, spread.validate.measured.rps)} raw, ` +
        `${change(ratio(small), ratio(spread))} relative to the bare route`,
    );
  }
  servers.stop();
  if (database) await database.close();
  else await pool.end();
  if (!allRecorded) process.exitCode = 1;
}

(process.env.BENCH_ROLE === 'server' ? serve() : main()).catch((error) => {
  console.error(error);
  process.exit(1);
});
