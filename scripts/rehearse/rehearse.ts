// `npm run rehearse`: both services as a small cluster on this machine (decisions, wave 3, "A
// rehearsal anyone can run"): HAProxy in front of 3 instances of each, a PostgreSQL primary and a
// streaming replica in a temporary folder, PgBouncer in transaction mode between the instances
// and the primary (wave 4, "Behind a transaction pooler"; skipped, and said so, when Debian's
// pgbouncer is not installed), Redis, and s3rver as the S3-compatible store all instances share
// (wave 4: a file uploaded through one instance downloads through any other; nothing on an
// instance's disk); 60 s of mixed traffic while one instance of
// each service is killed (SIGKILL) and the others are restarted one at a time (SIGTERM, drained).
// Prints a table; exits 1 unless every acknowledged write is present, every counted limit is
// exact, unexpected answers are at most 0.1% (none during the rolling restart) and the replica
// served reads.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  NO_POSTGRES_BINARIES,
  postgresBinaries,
  startStreamingPair,
} from '../../packages/db/src/testing/streaming-replica.js';
import { NO_PGBOUNCER, pgbouncerBinary, startPgBouncer } from '../../packages/db/src/testing/pgbouncer.js';
import { startDevIdp } from '../../packages/dev-idp/src/index.js';
import { signInAs } from '../../packages/auth/src/testing.js';
import { S3ObjectStore } from '../../packages/storage/src/index.js';
import { startS3Server } from '../../packages/storage/src/testing/s3-server.js';
import { haproxyConfig } from './haproxy.js';
import { Instance } from './instances.js';
import { artifactAcrossInstances, attachmentAcrossInstances, type Check } from './shared-store.js';
import { newTally, sendOne, type Targets } from './traffic.js';

const root = path.resolve(import.meta.dirname, '../..');
const TRAFFIC_MS = Number(process.env.REHEARSE_SECONDS ?? 60) * 1000;
const WORKERS = 6;
const REDIS_URL = process.env.REHEARSE_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
const LIMITS = { views: 20, ips: 3, machines: 5 };
const log = (message: string) => console.log(`[rehearse ${new Date().toISOString().slice(11, 19)}] ${message}`);

const haproxy = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
const bin = postgresBinaries();
if (!haproxy || !bin) {
  console.error(
    !haproxy ? 'rehearse: haproxy is not installed (apt-get install haproxy)' : `rehearse: ${NO_POSTGRES_BINARIES}`,
  );
  process.exit(1);
}
const psql = (url: string, sql: string) =>
  execFileSync(path.join(bin, 'psql'), [url, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' }).trim();
const withDatabase = (url: string, name: string) => url.replace(/\/postgres$/, `/${name}`);

function adminToken(secret: string, userId: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: userId, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return response.json() as Promise<Record<string, unknown>>;
}

/** Scans of the user tables that the replica itself answered, in one database. */
const replicaScans = (url: string) =>
  Number(
    psql(url, 'SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables') || 0,
  );

async function main(): Promise<number> {
  const started = Date.now();
  log('building both services (npm run build)');
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), 'paste', 'license'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`the build failed: ${build.stderr}`);
  const redisDb = new URL(REDIS_URL).pathname.slice(1) || '0';
  execFileSync('redis-cli', ['-u', REDIS_URL, '-n', redisDb, 'FLUSHDB']);

  const folder = mkdtempSync(path.join(os.tmpdir(), 'rehearse-'));
  const cleanups: (() => unknown)[] = [() => rmSync(folder, { recursive: true, force: true })];
  try {
    log('PostgreSQL primary and streaming replica (initdb, pg_basebackup -R)');
    const pair = await startStreamingPair({ bin });
    cleanups.push(() => pair.close());
    for (const name of ['paste', 'license']) psql(pair.primaryUrl, `CREATE DATABASE ${name}`);
    // The instances reach the primary through PgBouncer (transaction mode, statements unnamed) and
    // migrate on a direct connection; the replica and this script's checks connect directly.
    const pgbouncerBin = pgbouncerBinary();
    if (!pgbouncerBin) log(`skipped PgBouncer: ${NO_PGBOUNCER}; the instances connect to the primary directly`);
    else log('PgBouncer in transaction mode in front of the primary (the instances migrate on a direct URL)');
    const pgbouncer = pgbouncerBin
      ? await startPgBouncer({ serverUrl: pair.primaryUrl, bin: pgbouncerBin })
      : undefined;
    if (pgbouncer) cleanups.push(() => pgbouncer.close());
    const direct = { paste: withDatabase(pair.primaryUrl, 'paste'), license: withDatabase(pair.primaryUrl, 'license') };
    const throughPgBouncer = (service: 'paste' | 'license', prefix: string) =>
      pgbouncer
        ? {
            [`${prefix}_DATABASE_URL`]: pgbouncer.urlFor(service),
            [`${prefix}_DATABASE_MIGRATION_URL`]: direct[service],
            [`${prefix}_DATABASE_POOL_MODE`]: 'transaction',
          }
        : { [`${prefix}_DATABASE_URL`]: direct[service] };
    log('s3rver on loopback: the object store every instance shares (a prefix per service)');
    const s3 = await startS3Server({ bucket: 'rehearsal' });
    cleanups.push(() => s3.close());
    const sharedStore = (service: 'paste' | 'license') => ({
      STORAGE_URL: `s3://${s3.bucket}/${service}`,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_REGION: s3.region,
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    });
    const storeOf = (service: 'paste' | 'license') =>
      new S3ObjectStore({ ...s3, prefix: service, forcePathStyle: true });
    const idp = await startDevIdp({ port: await freePort() });
    cleanups.push(() => idp.stop());

    const [pasteFront, licenseFront] = [await freePort(), await freePort()];
    const pasteUrl = `http://127.0.0.1:${pasteFront}`;
    const licenseUrl = `http://127.0.0.1:${licenseFront}`;
    const jwtSecret = 'rehearsal-jwt-secret-0123456789abcdef';
    const common = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      REDIS_URL,
      TRUST_PROXY: '2',
      SHUTDOWN_DRAIN_MS: '3000',
      OAUTH_AUTHORIZATION_URL: idp.oauth.authorizationURL,
      OAUTH_TOKEN_URL: idp.oauth.tokenURL,
      OAUTH_USERINFO_URL: idp.oauth.userInfoURL,
      OAUTH_CLIENT_ID: idp.oauth.clientID,
      OAUTH_CLIENT_SECRET: idp.oauth.clientSecret,
    };
    const pasteEnv = {
      ...common,
      ...throughPgBouncer('paste', 'PASTE'),
      ...sharedStore('paste'),
      PASTE_DATABASE_REPLICA_URL: withDatabase(pair.replicaUrl, 'paste'),
      PASTE_PUBLIC_URL: pasteUrl,
      OWNER_ID: 'owner-1',
    };
    const licenseEnv = {
      ...common,
      ...throughPgBouncer('license', 'LICENSE'),
      ...sharedStore('license'),
      LICENSE_DATABASE_REPLICA_URL: withDatabase(pair.replicaUrl, 'license'),
      LICENSE_PUBLIC_URL: licenseUrl,
      ADMIN_IDS: 'admin-1',
      JWT_SECRET: jwtSecret,
      RATE_LIMIT_MAX: '1000000',
    };
    const instances = { paste: [] as Instance[], license: [] as Instance[] };
    for (let i = 1; i <= 3; i += 1) {
      const [p, l] = [await freePort(), await freePort()];
      instances.paste.push(
        new Instance(
          `paste-${i}`,
          path.join(root, 'apps/paste/dist/main.js'),
          p,
          { ...pasteEnv, PASTE_PORT: String(p) },
          folder,
        ),
      );
      instances.license.push(
        new Instance(
          `license-${i}`,
          path.join(root, 'apps/license/dist/main.js'),
          l,
          { ...licenseEnv, LICENSE_PORT: String(l) },
          folder,
        ),
      );
    }
    const all = [...instances.paste, ...instances.license];
    cleanups.push(() => Promise.all(all.map((instance) => instance.stop('SIGKILL'))));

    const config = path.join(folder, 'haproxy.cfg');
    writeFileSync(
      config,
      haproxyConfig([
        { name: 'paste', port: pasteFront, instances: instances.paste.map((instance) => instance.port) },
        { name: 'license', port: licenseFront, instances: instances.license.map((instance) => instance.port) },
      ]),
    );
    const balancer = spawn(haproxy, ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
    cleanups.push(() => balancer.kill('SIGKILL'));

    log('starting 3 instances of each service (the first of each migrates; the others start together)');
    await Promise.all([instances.paste[0]!.start(), instances.license[0]!.start()]);
    // The owner's limits out of the way: the rehearsal counts the service's limits, not its own pace.
    psql(
      direct.paste,
      `INSERT INTO paste_settings (namespace, value, version) VALUES ('paste', '{"webRateLimit":1000000,"apiRateLimit":1000000}', 1)
      ON CONFLICT (namespace) DO UPDATE SET value = paste_settings.value || EXCLUDED.value, version = paste_settings.version + 1`,
    );
    await Promise.all(
      all
        .slice(1)
        .filter((instance) => instance !== instances.license[0])
        .map((instance) => instance.start()),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));

    log('setting up: the owner signs in, an admin makes a product and two licenses, pastes with a view limit');
    const ownerCookie = await signInAs(pasteUrl, 'owner-1');
    const token = adminToken(jwtSecret, 'admin-1');
    const auth = { Authorization: `Bearer ${token}` };
    // The admin's own exports count against the per-person limit (1,000 per 15 minutes): a
    // vendor who scripts this much raises it, as the console's settings let them.
    const configured = await fetch(`${licenseUrl}/api/admin/config`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: JSON.stringify({ userRateLimit: { max: 1_000_000 } }),
    });
    if (!configured.ok)
      throw new Error(`PUT /api/admin/config answered ${configured.status}: ${await configured.text()}`);
    const product = (await post(`${licenseUrl}/api/products`, { name: 'Rehearsal' }, auth)).product as { _id: string };
    const license = async (limits: Record<string, number>) =>
      ((await post(`${licenseUrl}/api/licenses`, { product: product._id, ...limits }, auth)).license as { key: string })
        .key;
    const targets: Targets = {
      pasteUrl,
      licenseUrl,
      ownerCookie,
      adminToken: token,
      limitedSlugs: await Promise.all(
        Array.from(
          { length: 5 },
          async () =>
            (await post(`${pasteUrl}/api/paste`, { content: 'limited', maxViews: LIMITS.views }, {})).slug as string,
        ),
      ),
      ipLicenseKey: await license({ ipLimit: LIMITS.ips }),
      machineLicenseKey: await license({ hwidLimit: LIMITS.machines }),
    };

    log('shared store: a paste attachment up through paste-1, down through paste-2');
    const origin = (instance: Instance) => `http://127.0.0.1:${instance.port}`;
    const storeChecks: Check[] = await attachmentAcrossInstances(
      { a: origin(instances.paste[0]!), b: origin(instances.paste[1]!) },
      { paste: storeOf('paste') },
    );
    log('shared store: a release artifact up through license-1, published through license-2, down through license-3');
    storeChecks.push(
      ...(await artifactAcrossInstances(
        { a: origin(instances.license[0]!), b: origin(instances.license[1]!), c: origin(instances.license[2]!) },
        { productId: product._id, licenseKey: await license({}), adminHeaders: auth },
        { license: storeOf('license') },
      )),
    );
    const scansBefore =
      replicaScans(withDatabase(pair.replicaUrl, 'paste')) + replicaScans(withDatabase(pair.replicaUrl, 'license'));

    const tally = newTally();
    let phase = 'steady';
    const trafficEnds = Date.now() + TRAFFIC_MS;
    let eventsDone = false;
    log(`traffic for ${TRAFFIC_MS / 1000} s (longer if the restarts take longer) with ${WORKERS} clients`);
    const workers = Array.from({ length: WORKERS }, async () => {
      while (Date.now() < trafficEnds || !eventsDone) await sendOne(targets, tally, phase);
    });
    const events = (async () => {
      await new Promise((resolve) => setTimeout(resolve, TRAFFIC_MS * 0.15));
      phase = 'SIGKILL';
      log('SIGKILL paste-1 and license-1, then start them again');
      await Promise.all([instances.paste[0]!.stop('SIGKILL'), instances.license[0]!.stop('SIGKILL')]);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await Promise.all([instances.paste[0]!.start(), instances.license[0]!.start()]);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      phase = 'rolling restart';
      for (const index of [1, 2]) {
        log(`rolling restart: paste-${index + 1} and license-${index + 1} (SIGTERM, drained, started again)`);
        await Promise.all(
          [instances.paste[index]!, instances.license[index]!].map(async (instance) => {
            await instance.stop('SIGTERM');
            await instance.start();
          }),
        );
        // Until HAProxy's checks have seen it ready (rise 2 at 400 ms).
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
      phase = 'after';
      log('rolling restart done');
    })().finally(() => {
      eventsDone = true;
    });
    await Promise.all([...workers, events]);

    // Every write has reached the replica by now; its scans count the reads it answered.
    const scansAfter =
      replicaScans(withDatabase(pair.replicaUrl, 'paste')) + replicaScans(withDatabase(pair.replicaUrl, 'license'));
    const pasteDb = direct.paste;
    const licenseDb = direct.license;
    const pooled = await pgbouncer?.stats();
    const pooledTransactions = (service: string) => pooled?.get(service)?.transactions ?? 0;
    const slugList = `ARRAY[${tally.createdSlugs.map((slug) => `'${slug.replace(/'/g, "''")}'`).join(',')}]::text[]`;
    const pastesPresent =
      tally.createdSlugs.length === 0
        ? 0
        : Number(psql(pasteDb, `SELECT count(*) FROM pastes WHERE slug = ANY(${slugList})`));
    const viewCounts = new Map(
      psql(
        pasteDb,
        `SELECT slug, views_count FROM pastes WHERE slug IN (${targets.limitedSlugs.map((slug) => `'${slug}'`).join(',')})`,
      )
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('|') as [string, string])
        .map(([slug, views]) => [slug, Number(views)]),
    );
    const usedIps = Number(
      psql(licenseDb, `SELECT cardinality(used_ips) FROM licenses WHERE key = '${targets.ipLicenseKey}'`),
    );
    const machineRows = psql(
      licenseDb,
      `SELECT m.fingerprint FROM machines m JOIN licenses l ON l.id = m.license_id WHERE l.key = '${targets.machineLicenseKey}'`,
    )
      .split('\n')
      .filter(Boolean);
    const machinesPresent = [...tally.activatedFingerprints].every((fingerprint) => machineRows.includes(fingerprint));
    const secrets = [
      psql(pasteDb, 'SELECT count(*) FROM paste_generated_secrets'),
      psql(licenseDb, 'SELECT count(*) FROM license_generated_secrets'),
    ];
    // A rolling upgrade runs the previous releases' instances beside the new ones: the SQL
    // functions they call keep their names and columns (changed ones get a new versioned name).
    const previousValidation = ['license_validate_batch', 'license_validate_batch_v2'].map((name) =>
      psql(
        licenseDb,
        `SELECT error FROM ${name}(ARRAY['NO-SUCH-KEY'], ARRAY[NULL]::text[], ARRAY[NULL]::text[], ARRAY[NULL]::text[], now())`,
      ),
    );
    const previousSeats = psql(
      licenseDb,
      "SELECT count(DISTINCT proname) FROM pg_proc WHERE proname IN ('license_machine_seat', 'license_machine_seat_v2')",
    );
    const previousFunctionsAnswer =
      previousValidation.every((error) => error === 'License not found') && previousSeats === '2';
    const dataFiles = all.flatMap((instance) =>
      existsSync(instance.dataDir) ? readdirSync(instance.dataDir).map((file) => `${instance.name}/${file}`) : [],
    );

    // Exact: the database holds the limit and no more, and no client was told of more successes
    // than the limit; views whose answer was lost may or may not have counted.
    const viewsExact = targets.limitedSlugs.every((slug) => {
      const counted = viewCounts.get(slug) ?? -1;
      const answered = tally.viewsAnswered.get(slug) ?? 0;
      const lost = tally.viewsLost.get(slug) ?? 0;
      return (
        counted <= LIMITS.views &&
        answered <= counted &&
        counted <= answered + lost &&
        (answered + lost < LIMITS.views || counted === LIMITS.views)
      );
    });
    const ipsExact = usedIps === LIMITS.ips && tally.acceptedIps.size <= LIMITS.ips;
    const machinesExact = machineRows.length === LIMITS.machines && tally.activatedFingerprints.size <= LIMITS.machines;
    const phases = ['steady', 'SIGKILL', 'rolling restart', 'after'];
    const total = [...tally.byPhase.values()].reduce((sum, entry) => sum + entry.total, 0);
    const unexpected = [...tally.byPhase.values()].reduce((sum, entry) => sum + entry.unexpected, 0);
    const rollingUnexpected = tally.byPhase.get('rolling restart')?.unexpected ?? 0;
    const replicaReads = scansAfter - scansBefore;

    const checks: Check[] = [
      ...storeChecks,
      [
        'pastes acknowledged / present',
        `${tally.createdSlugs.length} / ${pastesPresent}`,
        pastesPresent === tally.createdSlugs.length,
      ],
      [
        'machines acknowledged / present',
        `${tally.activatedFingerprints.size} / ${machinesPresent ? tally.activatedFingerprints.size : 'missing'}`,
        machinesPresent,
      ],
      [
        `view limits (${targets.limitedSlugs.length} pastes, ${LIMITS.views} views each)`,
        targets.limitedSlugs.map((slug) => `${tally.viewsAnswered.get(slug) ?? 0}/${viewCounts.get(slug)}`).join(' '),
        viewsExact,
      ],
      [`IP limit (${LIMITS.ips} of 10 addresses)`, `${tally.acceptedIps.size} accepted, ${usedIps} recorded`, ipsExact],
      [
        `machine limit (${LIMITS.machines} of 30 fingerprints)`,
        `${tally.activatedFingerprints.size} activated, ${machineRows.length} recorded`,
        machinesExact,
      ],
      [
        'unexpected answers (<= 0.1%)',
        `${unexpected} of ${total} (${((unexpected / Math.max(total, 1)) * 100).toFixed(3)}%)`,
        unexpected <= total * 0.001,
      ],
      ['unexpected during rolling restart (0)', String(rollingUnexpected), rollingUnexpected === 0],
      ['replica reads (table scans on the replica)', String(replicaReads), replicaReads > 0],
      [
        "previous releases' SQL functions (rolling upgrade)",
        `validate v1+v2 answer, seat v1+v2: ${previousSeats} of 2`,
        previousFunctionsAnswer,
      ],
      ['generated session secrets in the database', secrets.join(' + '), secrets.every((count) => count === '1')],
      [
        'PgBouncer (transaction mode): transactions passed',
        pooled
          ? `${pooledTransactions('paste')} paste + ${pooledTransactions('license')} license`
          : 'skipped: pgbouncer is not installed',
        !pooled || (pooledTransactions('paste') > 0 && pooledTransactions('license') > 0),
      ],
      [
        "files in the instances' data folders",
        dataFiles.length ? dataFiles.join(', ') : 'none',
        dataFiles.length === 0,
      ],
    ];
    console.log('\nanswers by phase (action status: count)');
    for (const name of phases) {
      const entry = tally.byPhase.get(name);
      if (!entry) continue;
      const statuses = [...entry.statuses.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([label, count]) => `${label}: ${count}`)
        .join(', ');
      console.log(
        `  ${name.padEnd(16)} ${String(entry.total).padStart(6)} answers, ${entry.unexpected} unexpected | ${statuses}`,
      );
    }
    console.log('\ncheck                                              result                                   pass');
    for (const [name, value, pass] of checks)
      console.log(`${name.padEnd(50)} ${value.padEnd(40)} ${pass ? 'yes' : 'NO'}`);
    console.log(`\ntotal time ${Math.round((Date.now() - started) / 1000)} s`);
    return checks.every(([, , pass]) => pass) ? 0 : 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('rehearse failed:', error);
    process.exit(1);
  },
);
