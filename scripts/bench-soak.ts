/**
 * `npm run bench:soak`: SOAK_MINUTES (default 30) of steady mixed traffic on PostgreSQL against
 * both compiled services, looking for memory or latency that creeps up over time.
 *
 * Both bundles run as production runs them (scripts/service-runtime.ts) on a fresh database
 * (`soak_bench` on DATABASE_URL's server). The load holds a fixed rate (not the most the
 * machine gives, so latency measures the service rather than a queue): paste creates, views and
 * raw reads, and license validations, machine activations and heartbeats, SOAK_RATE (50) requests
 * a second per service; an admin page on each service every 15 s. The run is cut into windows
 * (60 s; 10 s when the run is under 10 minutes): at the end of each one it reads each service's
 * RSS (/proc/<pid>/status) and the window's p99 latency.
 *
 * The check (docs/benchmarks.md, "bench:soak"): the windows of the warm-up (a sixth of the run:
 * 5 of 30 minutes) are left out; the median of the first windows after it (a fifth of those
 * left, 3 at least: 5 of 25) is the baseline, the median of as many last ones the end; RSS or p99 of either service growing more than 10% from
 * baseline to end (p99 by 2 ms at least, below which it is timer noise) fails the run, as does any
 * answer that is not 2xx. Writes soak.csv and soak.png (the curve) to SOAK_OUTPUT_DIR (docs/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import autocannon, { type Request, type Result } from 'autocannon';
import { csrfTokenFor, signInAs } from '../packages/auth/src/testing.js';
import { loadConfig } from '../packages/config/src/index.js';
import { startDevIdp, type DevIdp } from '../packages/dev-idp/src/index.js';
import { buildTarget } from './build.mjs';
import { applyDevelopmentDefaults } from './development-env.js';
import { serviceEnv, serviceNodeFlags } from './service-runtime.js';
import { soakChartPng, type SoakSample } from './bench/soak-chart.js';

const root = path.resolve(import.meta.dirname, '..');
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
const pg = createRequire(path.join(root, 'packages/db/package.json'))('pg') as {
  Client: new (options: { connectionString: string }) => PgClient;
};

const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const windowSeconds = Number(process.env.SOAK_WINDOW_SECONDS ?? (minutes < 10 ? 10 : 60));
const warmupMinutes = Number(process.env.SOAK_WARMUP_MINUTES ?? minutes / 6);
const ratePerService = Number(process.env.SOAK_RATE ?? 50);
const outputDir = path.resolve(root, process.env.SOAK_OUTPUT_DIR ?? 'docs');
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ports = { paste: 18_490, license: 13_490, idp: 19_490 };
const services = ['paste', 'license'] as const;
type Service = (typeof services)[number];
/** Growth allowed from baseline to end, and the least p99 growth that counts. */
const allowedGrowth = 0.1;
const p99NoiseMs = 2;
/** Windows in the baseline and in the end (their median is taken): 3, or a fifth of those judged. */
const medianCount = (judged: number) => Math.max(3, Math.floor(judged / 5));
/** The bundles go to a folder of their own: a `npm run build` meanwhile does not touch what runs. */
const outDir = `.soak-${process.pid}`;

const rssMb = (pid: number): number =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freshDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS soak_bench WITH (FORCE)');
  await admin.query('CREATE DATABASE soak_bench');
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = '/soak_bench';
  return url.toString();
}

/** Production's process, flags and environment, with the development sign-in provider. */
function startServices(devIdp: DevIdp, databaseUrl: string, dataDir: string): ChildProcess[] {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...serviceEnv,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PASTE_PORT: String(ports.paste),
    LICENSE_PORT: String(ports.license),
    DEV_IDP_PORT: String(ports.idp),
    LOG_LEVEL: 'warn',
    // The load comes from one address: the per-client limits would answer it 429.
    RATE_LIMIT_ENABLED: 'false',
    OAUTH_AUTHORIZATION_URL: devIdp.oauth.authorizationURL,
    OAUTH_TOKEN_URL: devIdp.oauth.tokenURL,
    OAUTH_USERINFO_URL: devIdp.oauth.userInfoURL,
    OAUTH_CLIENT_ID: devIdp.oauth.clientID,
    OAUTH_CLIENT_SECRET: devIdp.oauth.clientSecret,
  };
  applyDevelopmentDefaults(env, loadConfig(env));
  const log = openSync(path.join(dataDir, 'services.log'), 'a');
  return services.map((service) =>
    spawn(process.execPath, [...serviceNodeFlags, path.join(root, 'apps', service, outDir, 'main.js')], {
      cwd: root,
      env,
      stdio: ['ignore', log, log],
    }),
  );
}

async function waitReady(children: ChildProcess[]): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const ready = await Promise.all(
      services.map((service) =>
        fetch(`http://localhost:${ports[service]}/readyz`).then(
          (response) => response.ok,
          () => false,
        ),
      ),
    );
    if (ready.every(Boolean)) return;
    if (children.some((child) => child.exitCode !== null)) throw new Error('a service stopped while starting');
    if (Date.now() > deadline) throw new Error('the services were not ready within 180 s');
    await sleep(100);
  }
}

const licenseBase = `http://localhost:${ports.license}`;
const pasteBase = `http://localhost:${ports.paste}`;

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return response;
}

/** Licenses with three machine seats and heartbeats, each machine activated once. */
async function machineLicenses(count: number, adminCookie: string): Promise<string[]> {
  // An admin API token, asked for as `npm run dev-token` does.
  const tokenResponse = await post(
    `${licenseBase}/api/auth/token`,
    {},
    {
      cookie: adminCookie,
      'x-csrf-token': await csrfTokenFor(licenseBase, adminCookie),
    },
  );
  const { token } = (await tokenResponse.json()) as { token: string };
  const auth = { authorization: `Bearer ${token}` };
  const { product } = (await (
    await post(`${licenseBase}/api/products`, { name: 'Soak', licensePrefix: 'SOAK' }, auth)
  ).json()) as {
    product: { _id: string };
  };
  const keys: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const body = { product: product._id, hwidLimit: 3, heartbeatSeconds: 3600 };
    const { license } = (await (await post(`${licenseBase}/api/licenses`, body, auth)).json()) as {
      license: { key: string };
    };
    for (let machine = 0; machine < 3; machine += 1)
      await post(`${licenseBase}/api/license/machines/activate`, {
        key: license.key,
        fingerprint: `machine-${machine}`,
      });
    keys.push(license.key);
  }
  return keys;
}

/** The paste owner lifts the web and API limits, which would answer one address's load 429. */
async function liftPasteLimits(ownerCookie: string): Promise<void> {
  const csrf = await csrfTokenFor(pasteBase, ownerCookie);
  await post(
    `${pasteBase}/api/settings/security`,
    { webRateLimit: 1_000_000, apiRateLimit: 1_000_000 },
    { cookie: ownerCookie, 'x-csrf-token': csrf },
  );
}

function pasteRequests(slug: string): Request[] {
  return [
    {
      method: 'POST',
      path: '/api/paste',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'console.log("soak");\n' }),
    },
    { method: 'GET', path: `/paste/${slug}` },
    { method: 'GET', path: `/paste/${slug}/raw` },
  ];
}

function licenseRequests(keys: string[]): Request[] {
  const machineBody = (extra: Record<string, unknown>) => (request: Request) => ({
    ...request,
    body: JSON.stringify({
      key: keys[Math.floor(Math.random() * keys.length)],
      fingerprint: `machine-${Math.floor(Math.random() * 3)}`,
      ...extra,
    }),
  });
  const json = { 'content-type': 'application/json' };
  return [
    {
      method: 'POST',
      path: '/api/license/validate',
      headers: json,
      setupRequest: (request: Request) => ({
        ...request,
        body: JSON.stringify({ key: keys[Math.floor(Math.random() * keys.length)], hwid: 'machine-0' }),
      }),
    },
    {
      method: 'POST',
      path: '/api/license/machines/activate',
      headers: json,
      setupRequest: machineBody({ name: 'Soak' }),
    },
    { method: 'POST', path: '/api/license/machines/heartbeat', headers: json, setupRequest: machineBody({}) },
  ];
}

interface Window extends SoakSample {
  answered: Record<Service, number>;
  failed: Record<Service, number>;
  adminPages: number;
}

const failedOf = (result: Result) => result.non2xx + result.errors + result.timeouts;

async function main(): Promise<void> {
  const load = os.loadavg().map((value) => value.toFixed(1));
  console.log(
    `soak bench: ${minutes} min (warm-up ${warmupMinutes.toFixed(1)}, windows of ${windowSeconds} s), ` +
      `${ratePerService} req/s per service; ${os.cpus().length} cores, Node ${process.version}, load average ${load.join(' ')}`,
  );
  const startedAt = Date.now();
  const secondsSinceStart = () => Math.round((Date.now() - startedAt) / 1000);
  const dataDir = path.join(os.tmpdir(), `soak-${process.pid}`);
  mkdirSync(dataDir, { recursive: true });
  let children: ChildProcess[] = [];
  const devIdp = await startDevIdp({ port: ports.idp });
  try {
    for (const service of services) await buildTarget(service, { outDir });
    children = startServices(devIdp, await freshDatabase(), dataDir);
    await waitReady(children);
    const pids = Object.fromEntries(services.map((service, index) => [service, children[index]!.pid!])) as Record<
      Service,
      number
    >;

    const ownerCookie = await signInAs(pasteBase, 'owner');
    await liftPasteLimits(ownerCookie);
    const adminCookie = await signInAs(licenseBase, 'admin');
    const keys = await machineLicenses(20, adminCookie);
    const { url } = (await (await post(`${pasteBase}/api/paste`, { content: 'function soak() {}\n' })).json()) as {
      url: string;
    };
    const slug = new URL(url, pasteBase).pathname.split('/').pop()!;

    // An admin page on each service now and then; each must answer 200.
    const adminPages = { served: 0, failed: [] as string[] };
    const adminPage = async (address: string, cookie: string) => {
      const response = await fetch(address, { headers: { cookie } });
      await response.arrayBuffer();
      if (response.status === 200) adminPages.served += 1;
      else adminPages.failed.push(`${address} answered ${response.status}`);
    };
    const adminTimer = setInterval(() => {
      void adminPage(`${pasteBase}/admin`, ownerCookie);
      void adminPage(`${licenseBase}/audit-log`, adminCookie);
    }, 15_000);

    console.log(`built, started and set up in ${secondsSinceStart()} s`);
    const windows: Window[] = [];
    const count = Math.max(1, Math.round((minutes * 60) / windowSeconds));
    const csvPath = path.join(outputDir, 'soak.csv');
    mkdirSync(outputDir, { recursive: true });
    const csvHeader =
      'minute,paste_rss_mb,license_rss_mb,paste_p99_ms,license_p99_ms,paste_answered,license_answered,failed';
    try {
      for (let index = 0; index < count; index += 1) {
        const run = (base: string, requests: Request[]) =>
          autocannon({ url: base, connections: 8, duration: windowSeconds, overallRate: ratePerService, requests });
        const servedBefore = adminPages.served;
        const [paste, license] = await Promise.all([
          run(pasteBase, pasteRequests(slug)),
          run(licenseBase, licenseRequests(keys)),
        ]);
        const window: Window = {
          minute: Number((((index + 1) * windowSeconds) / 60).toFixed(2)),
          rssMb: { paste: rssMb(pids.paste), license: rssMb(pids.license) },
          p99Ms: { paste: paste.latency.p99, license: license.latency.p99 },
          answered: { paste: paste['2xx'], license: license['2xx'] },
          failed: { paste: failedOf(paste), license: failedOf(license) },
          adminPages: adminPages.served - servedBefore,
        };
        windows.push(window);
        console.log(
          `  ${window.minute.toFixed(2).padStart(6)} min  RSS paste ${window.rssMb.paste} MB, license ${window.rssMb.license} MB; ` +
            `p99 paste ${window.p99Ms.paste} ms, license ${window.p99Ms.license} ms; answered ${paste['2xx']} + ${license['2xx']}` +
            (window.failed.paste + window.failed.license
              ? `; NOT 2xx ${window.failed.paste} + ${window.failed.license}`
              : ''),
        );
        writeFileSync(
          csvPath,
          [
            csvHeader,
            ...windows.map((w) =>
              [
                w.minute,
                w.rssMb.paste,
                w.rssMb.license,
                w.p99Ms.paste,
                w.p99Ms.license,
                w.answered.paste,
                w.answered.license,
                w.failed.paste + w.failed.license,
              ].join(','),
            ),
          ].join('\n') + '\n',
        );
      }
    } finally {
      clearInterval(adminTimer);
    }

    const judged = windows.filter((window) => window.minute > warmupMinutes + 1e-9);
    const medianOf = medianCount(judged.length);
    if (judged.length < 2 * medianOf) throw new Error(`too few windows after the warm-up (${judged.length})`);
    const baselineOf = (value: (window: Window) => number) => median(judged.slice(0, medianOf).map(value));
    const endOf = (value: (window: Window) => number) => median(judged.slice(-medianOf).map(value));
    let missed = false;
    const rows = [
      '| service | RSS baseline → end (MB) | growth | p99 baseline → end (ms) | growth | answered | not 2xx |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const service of services) {
      const rss = [baselineOf((w) => w.rssMb[service]!), endOf((w) => w.rssMb[service]!)] as const;
      const p99 = [baselineOf((w) => w.p99Ms[service]!), endOf((w) => w.p99Ms[service]!)] as const;
      const rssGrowth = rss[1] / rss[0] - 1;
      const p99Growth = p99[1] / p99[0] - 1;
      const rssMissed = rssGrowth > allowedGrowth;
      const p99Missed = p99Growth > allowedGrowth && p99[1] - p99[0] >= p99NoiseMs;
      const answered = windows.reduce((sum, w) => sum + w.answered[service], 0);
      const failed = windows.reduce((sum, w) => sum + w.failed[service], 0);
      missed ||= rssMissed || p99Missed || failed > 0;
      const percent = (growth: number, over: boolean) =>
        `${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%${over ? ' MISSED (≤ +10%)' : ''}`;
      rows.push(
        `| ${service} | ${rss[0]} → ${rss[1]} | ${percent(rssGrowth, rssMissed)} | ${p99[0]} → ${p99[1]} | ` +
          `${percent(p99Growth, p99Missed)} | ${answered} | ${failed} |`,
      );
    }
    missed ||= adminPages.failed.length > 0;
    console.log(`\n${rows.join('\n')}`);
    console.log(
      `admin pages: ${adminPages.served} served` +
        (adminPages.failed.length ? `, ${adminPages.failed.length} not 200 (${adminPages.failed[0]})` : ''),
    );
    const pngPath = path.join(outputDir, 'soak.png');
    writeFileSync(
      pngPath,
      soakChartPng({
        title: `bench:soak: ${minutes} min at ${ratePerService} req/s per service, compiled, PostgreSQL`,
        samples: windows,
        services: [...services],
        warmupMinutes,
      }),
    );
    console.log(`wrote ${path.relative(root, csvPath)} and ${path.relative(root, pngPath)}`);
    console.log(`${secondsSinceStart()} s in all`);
    console.log(
      `load average at the end ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
    );
    if (missed) {
      console.log('\nGrowth beyond 10% after the warm-up, or a failed answer: exit 1.');
      process.exitCode = 1;
    }
  } catch (error) {
    console.error(readFileSync(path.join(dataDir, 'services.log'), 'utf8').split('\n').slice(-30).join('\n'));
    throw error;
  } finally {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    await devIdp.stop();
    for (const service of services) rmSync(path.join(root, 'apps', service, outDir), { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
