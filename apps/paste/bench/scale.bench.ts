/**
 * The paste half of `npm run bench:scale` (issue 16): 1,000,000 pastes in the PostgreSQL database
 * `bench_scale_paste`, then the owner's pages timed (median and p90 of 20 sequential requests
 * after 2 warm-ups) against their targets. Exits 1 when a target is missed.
 *
 * The seed is kept between runs (the database's comment marks it complete); BENCH_RESEED=1 makes
 * it again. BENCH_DATABASE_URL (or DATABASE_URL) names the server; BENCH_RUNS the requests per page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcrypt';
import pg from 'pg';
import { signInAs } from '@app/auth/testing';
import { loadConfig } from '@app/config';
import { openDatabase, runMigrations } from '@app/db';
import { startDevIdp } from '@app/dev-idp';
import { createLogger } from '@app/http';
import { createSettingsStore } from '@app/settings';
import { bulkSession, markSeeded, migrationsFingerprint, prepareDatabase, printTable, secondsSince, serverUrl, timePage, withDatabase, withoutIndexes, type Timing } from '../../../scripts/bench/page-timing.js';
import { createApp, migrationsFolder } from '../src/app.js';
import { pasteSettingsSchema } from '../src/settings/settings.schema.js';

const databaseName = 'bench_scale_paste';
const pastes = 1_000_000;
const marker = `bench-scale paste seed v1: ${pastes} pastes, migrations ${migrationsFingerprint(migrationsFolder)}`;
const ownerId = 'bench-owner';

/**
 * 1,000,000 pastes over the last two years (newer ones more frequent). Sizes: 60 % 100 B–1 kB,
 * 30 % 1–5 kB, 10 % 5–40 kB of code-like text. 5 % have a view limit (some used up to one view
 * short of it), 10 % expire within 30 days, 3 % have a password (a real bcrypt hash of
 * "bench-password"), every one has a delete-token hash (SHA-256 hex) as the app stores it, and
 * views follow a long tail. Slugs are 10 base-62 characters, unique.
 */
async function seed(url: string): Promise<void> {
  const database = await openDatabase({ url, maxConnections: 2 });
  await runMigrations(database.db, migrationsFolder, 'paste');
  const passwordHash = await bcrypt.hash('bench-password', 10);
  await bulkSession(database.pool, async (client) => {
    await withoutIndexes(client, 'pastes', async () => {
      await client.query(`
        INSERT INTO pastes (slug, content, password_hash, max_views, views_count, created_at, last_viewed_at, delete_token_hash,
                            title, language, expires_at, reveal_on_click, preview_fetches)
        SELECT slug, content, password_hash, max_views, least(views, coalesce(max_views - 1, views)), created_at,
               CASE WHEN views > 0 THEN created_at + (random() * (now() - created_at)) END,
               encode(sha256(convert_to('delete-' || g, 'UTF8')), 'hex'),
               CASE WHEN g % 3 = 0 THEN 'Snippet ' || g END,
               (ARRAY['auto', 'plaintext', 'markdown', 'typescript', 'python', 'sql', 'bash'])[1 + g % 7],
               CASE WHEN g % 10 = 1 THEN now() + (1 + g % 720) * interval '1 hour' END,
               g % 50 = 7, (g % 5)
          FROM (
            SELECT g,
                   -- 10 base-62 characters from the row number and its hash: unique, and as random-looking as the app's.
                   translate(substr(encode(decode(md5(g::text) || md5('s' || g), 'hex'), 'base64'), 1, 10), '+/', 'xY') AS slug,
                   substr(repeat('function step' || g || '(input) {\n  // ' || md5(g::text) || '\n  return input.map((x) => x * 2);\n}\n',
                                 1 + size / 80), 1, size) AS content,
                   CASE WHEN g % 33 = 0 THEN $2::text END AS password_hash,
                   CASE WHEN g % 20 = 3 THEN 1 + g % 50 END AS max_views,
                   (floor(power(random(), 6) * 5000))::int AS views,
                   now() - power(random(), 1.5) * interval '730 days' AS created_at
              FROM (SELECT g, CASE WHEN g % 10 < 6 THEN 100 + ((g::bigint * 7919) % 900)::int
                                   WHEN g % 10 < 9 THEN 1000 + ((g::bigint * 7919) % 4000)::int
                                   ELSE 5000 + ((g::bigint * 7919) % 35000)::int END AS size
                      FROM generate_series(1, $1::int) AS g) sized
          ) p`, [pastes, passwordHash]);
    });
    // Pastes made through the API, as the counter the app keeps them in.
    await client.query(`INSERT INTO paste_counters (name, value) VALUES ('api_usage:0', 250000)
      ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`);
    await client.query('ANALYZE');
  });
  await markSeeded(database.pool, databaseName, marker);
  await database.close();
}

async function main(): Promise<void> {
  console.log(`paste bench:scale — ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`);
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  const prepared = await prepareDatabase(admin, databaseName, marker).finally(() => admin.end());
  if (prepared.seeded) {
    console.log(`${databaseName} already holds the seed (${marker}); BENCH_RESEED=1 seeds it again`);
  } else {
    const started = performance.now();
    await seed(prepared.url);
    console.log(`seeded ${pastes.toLocaleString('en')} pastes in ${secondsSince(started)} s (ANALYZE included)`);
  }

  const database = await openDatabase({ url: prepared.url, maxConnections: 10 });
  // Migrations made after the seed (a newer branch) apply to the kept data set too.
  await runMigrations(database.db, migrationsFolder, 'paste');
  await database.pool.query('ANALYZE');
  const idp = await startDevIdp({ port: 0 });
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'warn', OWNER_ID: ownerId, SESSION_SECRET: 'bench-scale-session-secret' });
  const settings = await createSettingsStore({ pool: database.pool, namespace: 'paste', schema: pasteSettingsSchema });
  await settings.update({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000 });
  const uploadDir = mkdtempSync(path.join(os.tmpdir(), 'paste-scale-'));
  const paste = createApp({ config, database, settings, oauth: idp.oauth, publicUrl: baseUrl, uploadDir, logger: createLogger({ level: 'warn' }) });
  server.on('request', paste.app);

  const headers = { Cookie: await signInAs(baseUrl, ownerId) };
  const timings: Timing[] = [
    await timePage('paste GET /api/stats', `${baseUrl}/api/stats`, headers, { target: 30 }),
    await timePage('paste GET /admin', `${baseUrl}/admin`, headers, { target: 30 }),
  ];
  const ok = printTable(`paste service, PostgreSQL, ${pastes.toLocaleString('en')} pastes (median of 20 after 2 warm-ups)`, timings);

  server.closeAllConnections();
  server.close();
  await paste.close();
  await settings.close();
  await idp.stop();
  await database.close();
  rmSync(uploadDir, { recursive: true, force: true });
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
