import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { loadConfig } from '@app/config';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import { createLogger, type Logger } from '@app/http';
import type { Redis } from '@app/rate-limit';
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { csrfTokenFor, signInAs } from '@app/auth/testing';
import { FileObjectStore, type ObjectStore } from '@app/storage';
import { createApp, migrationsFolder, type PasteApp } from '../src/app.js';
import { pasteSettingsSchema, type PasteSettings } from '../src/settings/settings.schema.js';
import { settingsTableName } from '../src/settings/settings.table.js';

export const OWNER_ID = 'owner-1';
export const OTHER_USER_ID = 'someone-else';

/** Limits high enough that no test trips them unless it lowers them on purpose. */
export const RELAXED_LIMITS: Partial<PasteSettings> = { webRateLimit: 1_000_000, apiRateLimit: 1_000_000 };

export interface TestSite {
  baseUrl: string;
  http: ReturnType<typeof request>;
  database: Database;
  settings: SettingsStore<PasteSettings>;
  paste: PasteApp;
  uploadDir: string;
  /** Where attachments keep their bytes: the store given, or a filesystem store in a temporary folder. */
  objects: ObjectStore;
  /** A signed-in session (cookie and CSRF token), made once per user and reused. */
  session(userId: string): Promise<{ cookie: string; csrf: string }>;
  /** An anonymous session holding a CSRF token: the site's own page. */
  pageSession(): Promise<{ cookie: string; csrf: string }>;
  /** Creates a paste through the API and answers its slug. */
  createPaste(body: Record<string, unknown>): Promise<string>;
  /** Settings back to the test defaults; pastes, keys, counters and uploaded files deleted. */
  reset(settings?: Partial<PasteSettings>): Promise<void>;
  close(): Promise<void>;
}

export interface TestSiteOptions {
  /** Environment variables over the test defaults (e.g. TRUST_PROXY). */
  env?: Record<string, string>;
  /** Rate-limit counts in Redis (see testRateLimitStore); in memory without it. */
  redis?: Redis;
  now?: () => Date;
  /** The app's logger (silent by default); log tests pass one that writes to a capture. */
  logger?: Logger;
  /** A database opened and migrated already (e.g. through PgBouncer); the caller closes it. */
  database?: Database;
  /** The attachments' store; by default a filesystem store in a temporary folder, served at /objects. */
  objects?: (baseUrl: string) => ObjectStore;
}

/**
 * The paste service on a fresh test database, listening on a free port (the dev identity
 * provider needs a real callback address), with the owner OWNER_ID. One per test file.
 */
export async function startTestSite(
  initial: Partial<PasteSettings> = RELAXED_LIMITS,
  options: TestSiteOptions = {},
): Promise<TestSite> {
  const database = options.database ?? (await createTestDatabase(migrationsFolder));
  const idp: DevIdp = await startDevIdp({ port: 0 });
  let handler: http.RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const config = loadConfig({
    NODE_ENV: 'test',
    OWNER_ID,
    LOG_LEVEL: 'silent',
    SESSION_START_LIMIT: '100000',
    ...options.env,
  });
  const settings = await createSettingsStore({
    pool: database.pool,
    table: settingsTableName,
    namespace: 'paste',
    schema: pasteSettingsSchema,
    refreshMs: 60_000,
  });
  await settings.update(initial);
  const uploadDir = mkdtempSync(path.join(os.tmpdir(), 'paste-uploads-'));
  const objectsDir = mkdtempSync(path.join(os.tmpdir(), 'paste-objects-'));
  const objects =
    options.objects?.(baseUrl) ??
    new FileObjectStore({ root: objectsDir, publicUrl: `${baseUrl}/objects`, signingSecret: 'test-object-secret' });
  const paste = createApp({
    config,
    database,
    settings,
    oauth: idp.oauth,
    publicUrl: baseUrl,
    uploadDir,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    bcryptRounds: 4,
    redis: options.redis,
    now: options.now,
    objects,
  });
  handler = paste.app;

  const sessions = new Map<string, Promise<{ cookie: string; csrf: string }>>();
  const site: TestSite = {
    baseUrl,
    http: request(baseUrl),
    database,
    settings,
    paste,
    uploadDir,
    objects,
    session(userId) {
      let found = sessions.get(userId);
      if (!found) {
        found = (async () => {
          const cookie = await signInAs(baseUrl, userId);
          return { cookie, csrf: await csrfTokenFor(baseUrl, cookie) };
        })();
        sessions.set(userId, found);
      }
      return found;
    },
    async pageSession() {
      const response = await request(baseUrl).get('/api/csrf-token');
      const cookie = (response.headers['set-cookie'] as unknown as string[])
        .map((line) => line.split(';')[0])
        .join('; ');
      return { cookie, csrf: response.body.csrfToken as string };
    },
    async createPaste(body) {
      const response = await request(baseUrl).post('/api/paste').send(body);
      if (response.status !== 200)
        throw new Error(`create paste answered ${response.status}: ${JSON.stringify(response.body)}`);
      return response.body.slug as string;
    },
    async reset(next = RELAXED_LIMITS) {
      await database.pool.query('DELETE FROM pastes');
      await database.pool.query('DELETE FROM paste_attachments');
      for await (const object of objects.list('')) await objects.delete(object.key);
      await database.pool.query('DELETE FROM api_keys');
      await database.pool.query('DELETE FROM paste_counters');
      for (const file of readdirSync(uploadDir)) rmSync(path.join(uploadDir, file), { force: true });
      await settings.update({ ...pasteSettingsSchema.parse({}), ...next });
    },
    async close() {
      await paste.close();
      await settings.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await idp.stop();
      if (!options.database) await database.close();
      rmSync(uploadDir, { recursive: true, force: true });
      rmSync(objectsDir, { recursive: true, force: true });
    },
  };
  return site;
}
