/**
 * `npm run bench:paste`: the paste service against a bare Express route, in one run.
 *
 * The servers run in a child process (this file with `--serve`), autocannon in this one, so the
 * load generator does not share the servers' event loop. The paste service uses the PostgreSQL
 * server when DATABASE_URL (or PASTE_DATABASE_URL) is set, else the embedded database in a
 * temporary folder; it is started by `startPasteService`, as `main.ts` starts it. Rate limits
 * are raised through the settings for the run.
 *
 * Environment: BENCH_DURATION (seconds per route, default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_ROUTES (subset of bare,post,get,floor), BENCH_PROFILE (folder for a CPU profile of the servers).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import autocannon, { type Result } from 'autocannon';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/http';
import { createPasteRepository } from '../src/pastes/paste.repository.js';
import { startPasteService } from '../src/server.js';

interface Ports { paste: number; bare: number; backend: string; slug: string }

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);

async function serve(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paste-bench-'));
  // The service as `main` starts it (migrations, settings, job queue), with a placeholder
  // identity provider: nobody signs in during the benchmark.
  const unused = 'http://127.0.0.1:9/unused';
  const config = loadConfig({
    ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', OWNER_ID: 'bench-owner', DATA_DIR: dataDir,
    OAUTH_CLIENT_ID: 'bench', OAUTH_CLIENT_SECRET: 'bench', OAUTH_AUTHORIZATION_URL: unused, OAUTH_TOKEN_URL: unused, OAUTH_USERINFO_URL: unused,
  });
  const service = await startPasteService(config, { port: 0, handleSignals: false, logger: createLogger({ level: 'warn' }) });
  const { database, settings } = service;
  await database.pool.query('DELETE FROM pastes');
  await settings.update({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000, apiAccess: true, apiKeyProtection: false });

  const bare = express();
  bare.get('/', (_req, res) => { res.json({ ok: true }); });
  // The database's share: the view statement alone behind the bare app (no middleware, no page).
  const views = createPasteRepository(database.pool, { batching: false });
  await database.pool.query("INSERT INTO pastes (slug, content) VALUES ('floor', 'x')");
  bare.get('/view-only', async (_req, res) => { res.json({ shown: Boolean(await views.view('floor', false)) }); });
  const barePort = await new Promise<number>((resolve) => {
    const server = bare.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

  // One paste to view; its content is a typical snippet with highlighting on (the default).
  const content = 'function add(a, b) {\n  // Adds two numbers.\n  return a + b;\n}\n\nconsole.log(add(2, 3));\n'.repeat(4);
  const slug = (await database.pool.query<{ slug: string }>(
    "INSERT INTO pastes (slug, content) VALUES ('benchmark', $1) RETURNING slug", [content])).rows[0]!.slug;
  process.send?.({ paste: service.running.port, bare: barePort, backend: database.mode, slug } satisfies Ports);
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
  const child = fork(import.meta.filename, ['--serve'], { execArgv: ['--import', 'tsx', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (ports) => resolve({ child, ports: ports as Ports }));
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
}

interface Row { name: string; result: Result }

async function run(name: string, options: Parameters<typeof autocannon>[0]): Promise<Row> {
  // A short warm-up (JIT, pool connections, highlight cache), not counted.
  await autocannon({ ...options, connections: CONNECTIONS, duration: 2 });
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
  if (result.non2xx || result.errors) console.warn(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { name, result };
}

async function main(): Promise<void> {
  const { child, ports } = await startServers();
  try {
    const paste = `http://127.0.0.1:${ports.paste}`;
    console.log(`paste service on the ${ports.backend === 'server' ? 'PostgreSQL server' : 'embedded database (PGlite)'}; ` +
      `${CONNECTIONS} connections, ${DURATION} s per route; ${os.cpus().length} CPU cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
    // BENCH_ROUTES=bare,post,get,floor (default all) picks routes, e.g. to profile one.
    const only = (process.env.BENCH_ROUTES ?? 'bare,post,get,floor').split(',');
    const rows: Row[] = [];
    if (only.includes('bare')) rows.push(await run('bare Express GET / (constant)', { url: `http://127.0.0.1:${ports.bare}/` }));
    if (only.includes('post')) {
      rows.push(await run('POST /api/paste', {
        url: `${paste}/api/paste`, method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'const greeting = "hello";\nconsole.log(greeting);\n' }),
      }));
    }
    if (only.includes('get')) rows.push(await run('GET /paste/:slug', { url: `${paste}/paste/${ports.slug}` }));
    if (only.includes('floor')) rows.push(await run('(reference) bare Express + the view UPDATE only', { url: `http://127.0.0.1:${ports.bare}/view-only` }));

    const bare = rows[0]?.name.startsWith('bare') ? rows[0].result.requests.average : Number.NaN;
    console.log('\n| route | req/s | p50 ms | p99 ms | ratio to bare |');
    console.log('|---|---:|---:|---:|---:|');
    for (const { name, result } of rows) {
      console.log(`| ${name} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${(result.requests.average / bare).toFixed(2)} |`);
    }
  } finally {
    child.disconnect();
  }
}

if (process.argv.includes('--serve')) {
  serve().catch((error: unknown) => { console.error(error); process.exit(1); });
} else {
  main().catch((error: unknown) => { console.error(error); process.exit(1); });
}
