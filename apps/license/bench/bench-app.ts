/**
 * The license app for the page benchmarks: on the given PostgreSQL database (migrated), with a
 * development identity provider so the benchmark signs in over HTTP as the admin or a customer,
 * listening on a free port in this process (requests are sent one at a time).
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { signInAs } from '@app/auth/testing';
import { loadConfig } from '@app/config';
import { openDatabase, runMigrations, type Database } from '@app/db';
import { startDevIdp } from '@app/dev-idp';
import { createLogger, startModules } from '@app/http';
import { createSettingsStore } from '@app/settings';
import { createApp, type LicenseApp } from '../src/app.js';
import { licenseSettingsNamespace, licenseSettingsSchema } from '../src/runtime-config/runtime-config.schema.js';
import { benchAdminId } from './seed.js';
import { settingsTableName } from '../src/runtime-config/settings.table.js';

export const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');

export interface BenchApp {
  baseUrl: string;
  database: Database;
  app: LicenseApp;
  adminId: string;
  /** Signs `userId` in; answers the headers of a signed-in GET. */
  signIn(userId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startBenchApp(url: string): Promise<BenchApp> {
  const database = await openDatabase({ url, maxConnections: 10 });
  await runMigrations(database.db, migrationsFolder);
  const idp = await startDevIdp({ port: 0 });
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    SESSION_SECRET: 'bench-pages-session-secret',
    ADMIN_IDS: benchAdminId,
    RATE_LIMIT_ENABLED: 'false',
    RATE_LIMIT_MAX: '1000000',
  });
  const settings = await createSettingsStore({
    pool: database.pool,
    table: settingsTableName,
    namespace: licenseSettingsNamespace,
    schema: licenseSettingsSchema,
  });
  const app = await createApp({
    config,
    database,
    settings,
    oauth: idp.oauth,
    publicUrl: baseUrl,
    logger: createLogger({ level: 'error' }),
  });
  await startModules(app.modules);
  server.on('request', app.app);
  return {
    baseUrl,
    database,
    app,
    adminId: benchAdminId,
    async signIn(userId) {
      return { Cookie: await signInAs(baseUrl, userId) };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await settings.close();
      await idp.stop();
      await database.close();
    },
  };
}
