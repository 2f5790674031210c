import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { csrfTokenFor, signInAs } from '@app/auth/testing';
import { loadConfig } from '@app/config';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import { createLogger } from '@app/http';
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { createApp, type LicenseApp } from '../../src/app.js';
import { licenseSettingsNamespace, licenseSettingsSchema, type LicenseSettings } from '../../src/runtime-config/runtime-config.schema.js';

export const migrationsFolder = path.resolve(import.meta.dirname, '../../drizzle');

export interface OpsTestApp {
  baseUrl: string;
  database: Database;
  license: LicenseApp;
  /** Signs a user in through the dev provider; answers the Cookie header and a CSRF token. */
  signIn(userId: string): Promise<{ cookie: string; csrf: string }>;
  close(): Promise<void>;
}

/** The license app listening on port 0 against a fresh test database and a dev identity provider. */
export async function startOpsApp(env: Record<string, string> = {}): Promise<OpsTestApp> {
  const database = await createTestDatabase(migrationsFolder);
  const idp: DevIdp = await startDevIdp({ port: 0 });
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ADMIN_IDS: 'admin-1,admin-2', ...env });
  const settings: SettingsStore<LicenseSettings> = await createSettingsStore({
    pool: database.pool, namespace: licenseSettingsNamespace, schema: licenseSettingsSchema,
  });
  const license = await createApp({
    config, database, logger: createLogger({ level: 'silent' }), settings, oauth: idp.oauth, publicUrl: baseUrl,
  });
  server.on('request', license.app);
  return {
    baseUrl,
    database,
    license,
    async signIn(userId) {
      const cookie = await signInAs(baseUrl, userId);
      return { cookie, csrf: await csrfTokenFor(baseUrl, cookie) };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await license.close();
      await settings.close();
      await idp.stop();
      await database.close();
    },
  };
}
