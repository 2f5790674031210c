/**
 * `npm run bench:paste`: the paste service against a bare Express route, in one run.
 *
 * The servers run in a child process (this file with `--serve`), autocannon in this one, so the
 * load generator does not share the servers' event loop. The paste service uses the PostgreSQL
 * server when DATABASE_URL (or PASTE_DATABASE_URL) is set, else the embedded database in a
 * temporary folder; it is started by `startPasteService`, as `main.ts` starts it. Rate limits
 * are raised through the settings for the run.
 *
 * The machine is shared, so each route's runs alternate with runs of the bare route (medians of
 * BENCH_ROUNDS, default 3), and the CPU the server process spent per request is printed beside
 * the throughput: it does not move with the background load the way req/s does. The load
 * generator's CPU per request and the machine's idle share are printed too: with idle cores, a
 * route is limited by one of its threads, not by the machine.
 * After the runs, the counts are checked: every 2xx create made a paste and every 2xx view
 * counted one view (requests still in flight when a run ended may count too); a mismatch
 * fails the benchmark.
 *
 * Environment: BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_ROUNDS (default 3), BENCH_ROUTES (subset of post,get,raw,epost,eraw,served,floor; epost
 * and eraw are the same two routes with an end-to-end encrypted paste's envelope, served is the
 * bare route served as the services are), BENCH_PROFILE (folder for a CPU profile of the servers).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import autocannon, { type Result } from 'autocannon';
import { loadConfig } from '@app/config';
import { createExpressServer, createLogger } from '@app/http';
import { createPasteBatches } from '../src/pastes/pastes.repository.js';
import { startPasteService } from '../src/service.js';
import { keyCheck, newKey, seal } from '../../../packages/paste-cli/src/envelope.js';
import { cpuSeconds, idleShare, machineCpu } from '../../../scripts/bench/cpu-usage.js';
import { benchServerFlags } from '../../../scripts/bench/server-flags.js';

/** The encrypted paste's key: 32 zero bytes (the benchmark measures the server, not secrecy). */
const BENCH_KEY = 'A'.repeat(43);

interface Ports {
  paste: number;
  bare: number;
  /** The bare app served as the services serve theirs (createExpressServer): a reference row. */
  servedBare: number;
  backend: string;
  slug: string;
}

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Listens on a free local port and answers it. */
async function portOf(server: http.Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function serve(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paste-bench-'));
  // The service as `main` starts it (migrations, settings, job queue), with a placeholder
  // identity provider: nobody signs in during the benchmark.
  const unused = 'http://127.0.0.1:9/unused';
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    SESSION_SECRET: 'bench-session-secret-bench-session-secret',
    LOG_LEVEL: 'warn',
    OWNER_ID: 'bench-owner',
    DATA_DIR: dataDir,
    OAUTH_CLIENT_ID: 'bench',
    OAUTH_CLIENT_SECRET: 'bench',
    OAUTH_AUTHORIZATION_URL: unused,
    OAUTH_TOKEN_URL: unused,
    OAUTH_USERINFO_URL: unused,
  });
  const service = await startPasteService(config, {
    port: 0,
    handleSignals: false,
    logger: createLogger({ level: 'warn' }),
  });
  const { database, settings } = service;
  await database.pool.query('DELETE FROM pastes');
  await settings.update({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000, apiAccess: true, apiKeyProtection: false });

  const bare = express();
  bare.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  // The database's share: the view statement alone behind the bare app (no middleware, no page).
  const views = createPasteBatches(database.pool, { batching: false });
  await database.pool.query("INSERT INTO pastes (slug, content) VALUES ('floor', 'x')");
  bare.get('/view-only', async (_req, res) => {
    res.json({ shown: Boolean(await views.view('floor', false)) });
  });
  // As Express's own app.listen serves it, and as the services serve theirs (the reference row).
  const barePort = await portOf(http.createServer(bare));
  const servedBarePort = await portOf(createExpressServer(bare));

  // One paste to view; its content is a typical snippet with highlighting on (the default).
  const content =
    'function add(a, b) {\n  // Adds two numbers.\n  return a + b;\n}\n\nconsole.log(add(2, 3));\n'.repeat(4);
  const slug = (
    await database.pool.query<{ slug: string }>(
      "INSERT INTO pastes (slug, content) VALUES ('benchmark', $1) RETURNING slug",
      [content],
    )
  ).rows[0]!.slug;
  // The raw view counts its views on a paste of its own, so each route's count is checked alone.
  await database.pool.query("INSERT INTO pastes (slug, content) VALUES ('benchraw', $1)", [content]);
  // An encrypted paste of the same text, for the raw view of encrypted pastes (the envelope as JSON).
  // Made with the key check (wave 4), under a key the parent knows, which sends its check with each read.
  const envelope = JSON.stringify(await seal({ content, language: 'javascript' }, BENCH_KEY));
  await database.pool.query("INSERT INTO pastes (slug, content, encrypted) VALUES ('benchenc', $1, true)", [envelope]);
  // The parent asks for the counts it checks after each route's runs.
  process.on('message', (message) => {
    if (message !== 'counts') return;
    void database.pool
      .query<Counts>(
        `SELECT count(*)::int AS pastes, coalesce(sum(views_count) FILTER (WHERE slug = 'benchmark'), 0)::int AS views,
              coalesce(sum(views_count) FILTER (WHERE slug = 'benchraw'), 0)::int AS "rawViews",
              count(*) FILTER (WHERE encrypted)::int AS "encryptedPastes",
              coalesce(sum(views_count) FILTER (WHERE slug = 'benchenc'), 0)::int AS "encryptedRawViews" FROM pastes`,
      )
      .then(({ rows }) => process.send?.({ counts: rows[0] }));
  });
  process.send?.({
    paste: service.running.port,
    bare: barePort,
    servedBare: servedBarePort,
    backend: database.mode,
    slug,
  } satisfies Ports);
  process.on('disconnect', () => {
    void service.stop().finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

function startServers(): Promise<{ child: ChildProcess; ports: Ports }> {
  // BENCH_PROFILE=<folder> writes a CPU profile of the servers there.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = fork(import.meta.filename, ['--serve'], {
    execArgv: [...benchServerFlags(), '--import', 'tsx', ...profile],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, ports: ports as Ports }));
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
}

interface Counts {
  pastes: number;
  views: number;
  rawViews: number;
  encryptedPastes: number;
  encryptedRawViews: number;
}

function counts(child: ChildProcess): Promise<Counts> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'counts' in message) {
        child.off('message', onMessage);
        resolve((message as { counts: Counts }).counts);
      }
    };
    child.on('message', onMessage);
    child.send('counts');
  });
}

interface Run {
  result: Result;
  cpuUs: number;
  requestThreadUs: number;
  loadUs: number;
  idle: number;
}

/**
 * One run. Besides the server's CPU it reads this process's (autocannon's, the load generator's)
 * and the machine's idle share: on a machine whose cores the three of them fill, req/s is
 * bounded by the CPU all of them spend per request, not by the server's alone.
 */
async function measure(pid: number, options: Parameters<typeof autocannon>[0]): Promise<Run> {
  const cpuBefore = cpuSeconds(pid);
  const threadBefore = cpuSeconds(pid, true);
  const loadBefore = process.cpuUsage();
  const machineBefore = machineCpu();
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  const load = process.cpuUsage(loadBefore);
  const machineAfter = machineCpu();
  const perRequest = (seconds: number) => (seconds / Math.max(1, result.requests.total)) * 1e6;
  return {
    result,
    cpuUs: perRequest(cpuSeconds(pid) - cpuBefore),
    requestThreadUs: perRequest(cpuSeconds(pid, true) - threadBefore),
    loadUs: perRequest((load.user + load.system) / 1e6),
    idle: idleShare(machineBefore, machineAfter),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Compared {
  name: string;
  bare: Run[];
  route: Run[];
  counted: number;
}

/**
 * Alternates bare and route runs so both see the same background load; a short warm-up first
 * (JIT, pool, highlight cache). `count` reads what the route's answers should have added.
 */
async function compare(
  pid: number,
  name: string,
  bareOptions: Parameters<typeof autocannon>[0],
  options: Parameters<typeof autocannon>[0],
  count: () => Promise<number> = () => Promise.resolve(0),
): Promise<Compared> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: 2 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = await count();
  const bare: Run[] = [];
  const route: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await measure(pid, bareOptions));
    route.push(await measure(pid, options));
  }
  // Requests cut off at the end of a run finish on the server meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { name, bare, route, counted: (await count()) - before };
}

async function main(): Promise<void> {
  const { child, ports } = await startServers();
  try {
    const paste = `http://127.0.0.1:${ports.paste}`;
    const pid = child.pid!;
    console.log(
      `paste service on the ${ports.backend === 'server' ? 'PostgreSQL server' : 'embedded database (PGlite)'}; ` +
        `${CONNECTIONS} connections, ${DURATION} s per run, bare and route runs alternate, medians of ${ROUNDS}; ` +
        `${os.cpus().length} CPU cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average ${os
          .loadavg()
          .map((v) => v.toFixed(1))
          .join(' ')}`,
    );
    const bareOptions = { url: `http://127.0.0.1:${ports.bare}/` };
    await autocannon({ ...bareOptions, connections: CONNECTIONS, duration: 2 });
    // BENCH_ROUTES=post,get,raw,served,floor (default all) picks routes, e.g. to profile one.
    const only = (process.env.BENCH_ROUTES ?? 'post,get,raw,epost,eraw,served,floor').split(',');
    const rows: Compared[] = [];
    let exact = true;
    if (only.includes('post')) {
      const row = await compare(
        pid,
        'POST /api/paste',
        bareOptions,
        {
          url: `${paste}/api/paste`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'const greeting = "hello";\nconsole.log(greeting);\n' }),
        },
        async () => (await counts(child)).pastes,
      );
      rows.push(row);
      exact = report('pastes created', row) && exact;
    }
    if (only.includes('get')) {
      const row = await compare(
        pid,
        'GET /paste/:slug',
        bareOptions,
        { url: `${paste}/paste/${ports.slug}` },
        async () => (await counts(child)).views,
      );
      rows.push(row);
      exact = report('views counted', row) && exact;
    }
    if (only.includes('raw')) {
      const row = await compare(
        pid,
        'GET /paste/:slug/raw',
        bareOptions,
        { url: `${paste}/paste/benchraw/raw` },
        async () => (await counts(child)).rawViews,
      );
      rows.push(row);
      exact = report('raw views counted', row) && exact;
    }
    if (only.includes('epost')) {
      // What the form and the CLI send: the envelope of the same snippet (the server only checks and stores it).
      const encrypted = await seal({ content: 'const greeting = "hello";\nconsole.log(greeting);\n' }, newKey());
      const row = await compare(
        pid,
        'POST /api/paste (encrypted)',
        bareOptions,
        {
          url: `${paste}/api/paste`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ encrypted }),
        },
        async () => (await counts(child)).encryptedPastes,
      );
      rows.push(row);
      exact = report('encrypted pastes created', row) && exact;
    }
    if (only.includes('eraw')) {
      const row = await compare(
        pid,
        'GET /paste/:slug/raw (encrypted)',
        bareOptions,
        { url: `${paste}/paste/benchenc/raw`, headers: { 'X-Paste-Key-Check': await keyCheck(BENCH_KEY) } },
        async () => (await counts(child)).encryptedRawViews,
      );
      rows.push(row);
      exact = report('encrypted raw views counted', row) && exact;
    }
    if (only.includes('served')) {
      rows.push(
        await compare(pid, '(reference) bare Express, served as the services are', bareOptions, {
          url: `http://127.0.0.1:${ports.servedBare}/`,
        }),
      );
    }
    if (only.includes('floor')) {
      rows.push(
        await compare(pid, '(reference) bare Express + the view UPDATE only', bareOptions, {
          url: `http://127.0.0.1:${ports.bare}/view-only`,
        }),
      );
    }

    // The request thread's CPU is the app's HTTP work alone: on the embedded database the rest of
    // the server's CPU is PGlite's worker thread.
    // The load generator's CPU and the machine's idle share show whether the cores were full.
    console.log(
      '\n| route | req/s | p50 ms | p99 ms | server CPU µs/req | request thread µs/req | load generator µs/req | machine idle | ratio to bare (req/s) | ratio to bare (CPU) | each round (req/s) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const { name, bare, route } of rows) {
      const bareRps = median(bare.map((run) => run.result.requests.average));
      const rps = median(route.map((run) => run.result.requests.average));
      const chosen = route.find((run) => run.result.requests.average === rps)!;
      const bareCpu = median(bare.map((run) => run.cpuUs));
      const cpu = median(route.map((run) => run.cpuUs));
      const bareThread = median(bare.map((run) => run.requestThreadUs));
      const thread = median(route.map((run) => run.requestThreadUs));
      const bareLoad = median(bare.map((run) => run.loadUs));
      const load = median(route.map((run) => run.loadUs));
      const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
      const bareIdle = percent(median(bare.map((run) => run.idle)));
      const idle = percent(median(route.map((run) => run.idle)));
      // Each route run against the bare run just before it: the spread shows how far the
      // background load moved the medians.
      const rounds = route
        .map((run, index) => (run.result.requests.average / bare[index]!.result.requests.average).toFixed(2))
        .join(' ');
      console.log(
        `| bare Express GET / (alongside) | ${bareRps.toFixed(0)} | | | ${bareCpu.toFixed(0)} | ${bareThread.toFixed(0)} | ${bareLoad.toFixed(0)} | ${bareIdle} | 1.00 | 1.00 | |`,
      );
      console.log(
        `| ${name} | ${rps.toFixed(0)} | ${chosen.result.latency.p50} | ${chosen.result.latency.p99} | ${cpu.toFixed(0)} | ${thread.toFixed(0)} | ${load.toFixed(0)} | ${idle} | ${(rps / bareRps).toFixed(2)} | ${(bareCpu / cpu).toFixed(2)} | ${rounds} |`,
      );
    }
    if (!exact) {
      console.error('\nA count did not match the answers (see above).');
      process.exitCode = 1;
    }
  } finally {
    child.disconnect();
  }
}

/** Every 2xx answer counted once; requests cut off at the end of a run (sent, unanswered) may have counted as well. */
function report(what: string, row: Compared): boolean {
  const { route: runs, counted } = row;
  const answered = runs.reduce((sum, run) => sum + run.result['2xx'], 0);
  const sent = runs.reduce((sum, run) => sum + run.result.requests.sent, 0);
  const ok = counted >= answered && counted <= sent;
  const failed = runs.reduce((sum, run) => sum + run.result.non2xx + run.result.errors, 0);
  console.log(
    `${row.name}: ${answered} answered 2xx (${failed} not), ${counted} ${what}${ok ? ' — every answer counted' : ' — MISMATCH'}`,
  );
  return ok;
}

if (process.argv.includes('--serve')) {
  serve().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
