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
import {
  bulkSession,
  markSeeded,
  migrationsFingerprint,
  prepareDatabase,
  printTable,
  secondsSince,
  serverUrl,
  timePage,
  withDatabase,
  type Timing,
} from '../../../scripts/bench/page-timing.js';
import { createApp, migrationsFolder } from '../src/app.js';
import { seedPastes } from './seed.js';
import { pasteSettingsSchema } from '../src/settings/settings.schema.js';
import { settingsTableName } from '../src/settings/settings.table.js';

const databaseName = 'bench_scale_paste';
const pastes = 1_000_000;
const marker = `bench-scale paste seed v1: ${pastes} pastes, migrations ${migrationsFingerprint(migrationsFolder)}`;
const ownerId = 'bench-owner';

/** 1,000,000 pastes (see seed.ts), a password on some: "bench-password". */
async function seed(url: string): Promise<void> {
  const database = await openDatabase({ url, maxConnections: 2 });
  await runMigrations(database.db, migrationsFolder, 'paste');
  const passwordHash = await bcrypt.hash('bench-password', 10);
  await bulkSession(database.pool, async (client) => {
    await seedPastes(client, pastes, passwordHash);
    await client.query('ANALYZE');
  });
  await markSeeded(database.pool, databaseName, marker);
  await database.close();
}

async function main(): Promise<void> {
  console.log(
    `paste bench:scale — ${os.cpus().length} cores, Node ${process.version}, load ${os
      .loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
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
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    OWNER_ID: ownerId,
    SESSION_SECRET: 'bench-scale-session-secret',
  });
  const settings = await createSettingsStore({
    pool: database.pool,
    table: settingsTableName,
    namespace: 'paste',
    schema: pasteSettingsSchema,
  });
  await settings.update({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000 });
  const uploadDir = mkdtempSync(path.join(os.tmpdir(), 'paste-scale-'));
  const paste = createApp({
    config,
    database,
    settings,
    oauth: idp.oauth,
    publicUrl: baseUrl,
    uploadDir,
    logger: createLogger({ level: 'warn' }),
  });
  server.on('request', paste.app);

  const headers = { Cookie: await signInAs(baseUrl, ownerId) };
  const timings: Timing[] = [
    await timePage('paste GET /api/stats', `${baseUrl}/api/stats`, headers, { target: 30 }),
    await timePage('paste GET /admin', `${baseUrl}/admin`, headers, { target: 30 }),
  ];
  const ok = printTable(
    `paste service, PostgreSQL, ${pastes.toLocaleString('en')} pastes (median of 20 after 2 warm-ups)`,
    timings,
  );

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
