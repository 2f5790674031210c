/**
 * `npm run bench:footprint`: each service's memory and start-up, as people run it.
 *
 * Three ways of running, one after another, each on a fresh data folder (and a fresh PostgreSQL
 * database for the third):
 * 1. `npm start` (both services, the embedded database, the development identity provider);
 * 2. the compiled bundles (`npm run build`, then `node apps/<service>/dist/main.js`), embedded;
 * 3. the compiled bundles on PostgreSQL (DATABASE_URL, default the local server).
 * For each: seconds until both `/readyz` answer (fresh data, then a restart on the same data), each
 * service's RSS at idle, its highest RSS during FOOTPRINT_LOAD_SECONDS (default 60) of load, and
 * its RSS 15 s after the load. The load is paste creates, views and raw reads, and license
 * validations of a real key, 16 connections each, at once; every answer is counted.
 *
 * Prints one table with the targets of docs/benchmarks.md and exits 1 when one is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import autocannon, { type Options, type Result } from 'autocannon';
import { csrfTokenFor, walkSignIn } from '../packages/auth/src/testing.js';
import { loadConfig } from '../packages/config/src/index.js';
import { startDevIdp, type DevIdp } from '../packages/dev-idp/src/index.js';
import { buildTarget } from './build.mjs';
import { applyDevelopmentDefaults } from './development-env.js';
import { serviceEnv, serviceNodeFlags } from './service-runtime.js';

const root = path.resolve(import.meta.dirname, '..');
// The PostgreSQL client of the database package (the workspace root declares no pg of its own).
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
const pg = createRequire(path.join(root, 'packages/db/package.json'))('pg') as {
  Client: new (options: { connectionString: string }) => PgClient;
};
const loadSeconds = Number(process.env.FOOTPRINT_LOAD_SECONDS ?? 60);
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ports = { paste: 18_480, license: 13_480, idp: 19_480 };
const services = ['paste', 'license'] as const;
type Service = (typeof services)[number];

/** The targets (docs/benchmarks.md); undefined: shown, not judged. */
const targets = {
  embeddedIdleMb: 150,
  serverIdleMb: 80,
  freshStartS: 10,
  restartS: 2,
};

interface Run {
  label: string;
  /** Starts both services on `dataDir`; answers what stops them. */
  start(dataDir: string): ChildProcess[];
  pidOf(children: ChildProcess[], service: Service): number;
  env?: NodeJS.ProcessEnv;
  embedded: boolean;
}

interface Measured {
  label: string;
  embedded: boolean;
  freshS: number;
  restartS: number;
  idle: Record<Service, number>;
  loadPeak: Record<Service, number>;
  after: Record<Service, number>;
  answered: Record<Service, number>;
  failed: Record<Service, number>;
}

const baseEnv = (dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATA_DIR: dataDir,
  PASTE_PORT: String(ports.paste),
  LICENSE_PORT: String(ports.license),
  DEV_IDP_PORT: String(ports.idp),
  LOG_LEVEL: 'warn',
  // The load comes from one address: the per-client limits would answer it 429.
  RATE_LIMIT_ENABLED: 'false',
  DATABASE_URL: '',
  ...extra,
});

/** The services' output, shown when one fails. */
const logOf = (dataDir: string) => openSync(path.join(dataDir, 'services.log'), 'a');

const rssMb = (pid: number): number => {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
};

/** The process below `ancestor` whose command line runs `service`'s bundle. */
function serviceProcess(ancestor: number, service: Service): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let at = parents.get(pid); at; at = parents.get(at)) if (at === ancestor) return true;
    return false;
  };
  for (const pid of parents.keys()) {
    if (!below(pid)) continue;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    if (command.includes(`apps/${service}/`) && command.includes('main.js')) return pid;
  }
  throw new Error(`no ${service} process below ${ancestor}`);
}

const npmStart: Run = {
  label: 'npm start (embedded)',
  embedded: true,
  start: (dataDir) => [
    spawn('npm', ['start'], {
      cwd: root,
      env: baseEnv(dataDir),
      detached: true,
      stdio: ['ignore', logOf(dataDir), logOf(dataDir)],
    }),
  ],
  pidOf: (children, service) => serviceProcess(children[0]!.pid!, service),
};

/**
 * The bundles, each started as a production deployment starts it. The sign-in provider is the
 * development one, run here as npm start runs it (the bench signs in to raise limits and get a token).
 */
const compiled = (label: string, extra: (dataDir: string) => NodeJS.ProcessEnv, embedded: boolean): Run => ({
  label,
  embedded,
  start: (dataDir) =>
    services.map((service) =>
      spawn(process.execPath, [...serviceNodeFlags, path.join(root, 'apps', service, 'dist/main.js')], {
        cwd: root,
        env: { ...serviceEnv, ...providerEnv(baseEnv(dataDir, extra(dataDir))) },
        detached: true,
        stdio: ['ignore', logOf(dataDir), logOf(dataDir)],
      }),
    ),
  pidOf: (children, service) => children[services.indexOf(service)]!.pid!,
});

let devIdp: DevIdp | undefined;

/** `env` with the development provider's settings and the development defaults (scripts/start.ts). */
function providerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const withProvider: NodeJS.ProcessEnv = {
    ...env,
    OAUTH_AUTHORIZATION_URL: devIdp!.oauth.authorizationURL,
    OAUTH_TOKEN_URL: devIdp!.oauth.tokenURL,
    OAUTH_USERINFO_URL: devIdp!.oauth.userInfoURL,
    OAUTH_CLIENT_ID: devIdp!.oauth.clientID,
    OAUTH_CLIENT_SECRET: devIdp!.oauth.clientSecret,
  };
  applyDevelopmentDefaults(withProvider, loadConfig(withProvider));
  return withProvider;
}

async function waitReady(children: ChildProcess[], started: number): Promise<number> {
  const deadline = started + 180_000;
  for (;;) {
    const ready = await Promise.all(
      services.map((service) =>
        fetch(`http://localhost:${ports[service]}/readyz`).then(
          (response) => response.ok,
          () => false,
        ),
      ),
    );
    if (ready.every(Boolean)) return (Date.now() - started) / 1000;
    const dead = children.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (dead) throw new Error(`a service stopped while starting (exit code ${dead.exitCode})`);
    if (Date.now() > deadline) throw new Error('the services were not ready within 180 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      // npm may exit before the processes below it (the launcher still stops the development
      // provider): the next run needs their ports, so wait for the whole process group.
      while (groupAlive(child.pid!)) await new Promise((resolve) => setTimeout(resolve, 50));
    }),
  );
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/** An admin token through the development provider (as `npm run dev-token` gets one), then a product and a license. */
async function licenseKey(): Promise<string> {
  const token = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev-token.ts'], {
      cwd: root,
      env: baseEnv(''),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(output.trim()) : reject(new Error(`dev-token exited ${code}`))));
  });
  const api = async (route: string, body: unknown) => {
    const response = await fetch(`http://localhost:${ports.license}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${route} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, { _id: string; key: string }>;
  };
  const { product } = await api('/api/products', { name: 'Footprint', licensePrefix: 'FOOT' });
  const { license } = await api('/api/licenses', { product: product!._id });
  return license!.key;
}

/**
 * The paste owner (signed in through the development provider) raises the web and API rate limits, which
 * would otherwise answer the load, all from one address, 429.
 */
async function liftPasteLimits(): Promise<void> {
  const base = `http://localhost:${ports.paste}`;
  const { cookie } = await walkSignIn(base, 'owner');
  const response = await fetch(`${base}/api/settings/security`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': await csrfTokenFor(base, cookie), 'content-type': 'application/json' },
    body: JSON.stringify({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000 }),
  });
  if (!response.ok)
    throw new Error(`POST /api/settings/security answered ${response.status}: ${await response.text()}`);
}

async function pasteSlug(): Promise<string> {
  const response = await fetch(`http://localhost:${ports.paste}/api/paste`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'function footprint() {\n  return 42;\n}\n' }),
  });
  if (!response.ok) throw new Error(`POST /api/paste answered ${response.status}`);
  const body = (await response.json()) as { url?: string; slug?: string };
  return body.slug ?? new URL(body.url!).pathname.split('/').pop()!;
}

async function load(key: string, slug: string, seconds: number) {
  const run = (options: Options) => autocannon({ connections: 16, duration: seconds, ...options });
  const [paste, license] = await Promise.all([
    run({
      url: `http://localhost:${ports.paste}`,
      requests: [
        {
          method: 'POST',
          path: '/api/paste',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'console.log("footprint");\n' }),
        },
        { method: 'GET', path: `/paste/${slug}` },
        { method: 'GET', path: `/paste/${slug}/raw` },
      ],
    }),
    run({
      url: `http://localhost:${ports.license}/api/license/validate`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key, hwid: 'footprint-1' }),
    }),
  ]);
  const answered = (result: Result) => result['2xx'];
  const failed = (result: Result) => result.non2xx + result.errors + result.timeouts;
  for (const [service, result] of [
    ['paste', paste],
    ['license', license],
  ] as const) {
    if (failed(result) === 0) continue;
    const statuses = (result as Result & { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
    console.log(
      `  ${service}: ${failed(result)} not 2xx: ` +
        Object.entries(statuses)
          .map(([status, { count }]) => `${status} ×${count}`)
          .join(', ') +
        `, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return {
    answered: { paste: answered(paste), license: answered(license) },
    failed: { paste: failed(paste), license: failed(license) },
  };
}

/** What runs now, stopped whatever happens. */
let running: ChildProcess[] = [];

async function measure(run: Run): Promise<Measured> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'footprint-'));
  try {
    let started = Date.now();
    let children = run.start(dataDir);
    running = children;
    const freshS = await waitReady(children, started);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const each = (value: (service: Service) => number) =>
      Object.fromEntries(services.map((service) => [service, value(service)])) as Record<Service, number>;
    const pids = each((service) => run.pidOf(children, service));
    const idle = each((service) => rssMb(pids[service]));

    await liftPasteLimits();
    const [key, slug] = await Promise.all([licenseKey(), pasteSlug()]);
    const loadPeak = each(() => 0);
    const sampler = setInterval(() => {
      for (const service of services) loadPeak[service] = Math.max(loadPeak[service], rssMb(pids[service]));
    }, 500);
    const counted = await load(key, slug, loadSeconds);
    clearInterval(sampler);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const after = each((service) => rssMb(pids[service]));
    await stop(children);

    started = Date.now();
    children = run.start(dataDir);
    running = children;
    const restartS = await waitReady(children, started);
    await stop(children);
    return { label: run.label, embedded: run.embedded, freshS, restartS, idle, loadPeak, after, ...counted };
  } catch (error) {
    console.error(readFileSync(path.join(dataDir, 'services.log'), 'utf8').split('\n').slice(-30).join('\n'));
    throw error;
  } finally {
    await stop(running);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function freshServerDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS footprint_bench WITH (FORCE)');
  await admin.query('CREATE DATABASE footprint_bench');
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = '/footprint_bench';
  return url.toString();
}

function mark(value: number, target: number | undefined): string {
  if (target === undefined) return `${value}`;
  return `${value} ${value <= target ? 'ok' : `MISSED (≤ ${target})`}`;
}

async function main(): Promise<void> {
  console.log(
    `footprint bench: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
      `load average ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}; ${loadSeconds} s of load, 16 connections per service`,
  );
  for (const service of services) await buildTarget(service);
  const serverDatabase = await freshServerDatabase().catch(() => undefined);
  const runs: Run[] = [
    npmStart,
    compiled('compiled, embedded', () => ({}), true),
    ...(serverDatabase ? [compiled('compiled, PostgreSQL', () => ({ DATABASE_URL: serverDatabase }), false)] : []),
  ];
  if (!serverDatabase) console.log(`skipped the PostgreSQL run: no server answers at ${serverUrl}`);

  const results: Measured[] = [];
  for (const run of runs) {
    if (run === runs[2]) await freshServerDatabase();
    if (run !== npmStart) devIdp ??= await startDevIdp({ port: ports.idp });
    console.log(`\n${run.label} ...`);
    const result = await measure(run);
    results.push(result);
    console.log(
      `  ready ${result.freshS.toFixed(1)} s fresh, ${result.restartS.toFixed(1)} s restart; answered ` +
        services
          .map((service) => `${service} ${result.answered[service]} (${result.failed[service]} not 2xx)`)
          .join(', '),
    );
  }

  let missed = false;
  const lines = [
    '| run | service | RSS idle (MB) | RSS peak under load | RSS 15 s after | ready, fresh (s) | ready, restart (s) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const result of results) {
    const idleTarget = result.embedded ? targets.embeddedIdleMb : targets.serverIdleMb;
    for (const service of services) {
      missed ||= result.idle[service] > idleTarget;
      lines.push(
        `| ${result.label} | ${service} | ${mark(result.idle[service], idleTarget)} | ${result.loadPeak[service]} | ` +
          `${result.after[service]} | ${mark(Number(result.freshS.toFixed(1)), targets.freshStartS)} | ` +
          `${mark(Number(result.restartS.toFixed(1)), targets.restartS)} |`,
      );
    }
    missed ||= result.freshS > targets.freshStartS || result.restartS > targets.restartS;
    missed ||= services.some((service) => result.failed[service] > 0 || result.answered[service] === 0);
  }
  console.log(`\n${lines.join('\n')}`);
  await devIdp?.stop();
  if (missed) {
    console.log('\nA target was missed (or a request failed): exit 1.');
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
