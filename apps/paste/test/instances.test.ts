import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor, signInAs } from '@app/auth/testing';
import { loadConfig } from '@app/config';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import { createLogger } from '@app/http';
import { createRedisClient, type Redis } from '@app/rate-limit';
import { redisForTests, testRedisUrl } from '@app/rate-limit/testing';
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { createApp, migrationsFolder, type PasteApp } from '../src/app.js';
import { pasteSettingsSchema, type PasteSettings } from '../src/settings/settings.schema.js';
import { OWNER_ID } from './helpers.js';
import { settingsTableName } from '../src/settings/settings.table.js';

const redisUrl = testRedisUrl();

interface Instance {
  baseUrl: string;
  paste: PasteApp;
  settings: SettingsStore<PasteSettings>;
  server: http.Server;
}

const available = await redisForTests('two paste instances sharing Redis', redisUrl);

/** Two instances of the service on one database and one Redis, as behind a load balancer. */
describe.skipIf(!available)(`two instances sharing the database and Redis (${testDatabaseBackend()})`, () => {
  let database: Database;
  let idp: DevIdp;
  let redis: Redis;
  const prefix = `test-${randomBytes(6).toString('hex')}`;
  const uploadDir = mkdtempSync(path.join(os.tmpdir(), 'paste-instances-'));
  const instances: Instance[] = [];

  async function startInstance(): Promise<Instance> {
    let handler: http.RequestListener = () => {};
    const server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settings = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: 'paste',
      schema: pasteSettingsSchema,
      refreshMs: 100,
    });
    const paste = createApp({
      config: loadConfig({ NODE_ENV: 'test', OWNER_ID, LOG_LEVEL: 'silent' }),
      database,
      settings,
      oauth: idp.oauth,
      publicUrl: baseUrl,
      uploadDir,
      redis,
      rateLimitName: prefix,
      logger: createLogger({ level: 'silent' }),
      bcryptRounds: 4,
    });
    handler = paste.app;
    return { baseUrl, paste, settings, server };
  }

  beforeAll(async () => {
    database = await createTestDatabase(migrationsFolder);
    idp = await startDevIdp({ port: 0 });
    redis = createRedisClient(redisUrl);
    const seed = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: 'paste',
      schema: pasteSettingsSchema,
    });
    await seed.update({ webRateLimit: 10, apiRateLimit: 1000 });
    await seed.close();
    instances.push(await startInstance(), await startInstance());
  });

  afterAll(async () => {
    for (const instance of instances) {
      await instance.paste.close();
      await instance.settings.close();
      const closed = new Promise<void>((resolve) => instance.server.close(() => resolve()));
      instance.server.closeAllConnections();
      await closed;
    }
    const keys = await redis.keys(`rl:${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await idp.stop();
    await database.close();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('counts one web limit across both instances, and a limit lowered on one applies on the other', async () => {
    const [a, b] = instances as [Instance, Instance];
    const slug = (await request(a.baseUrl).post('/api/paste').send({ content: 'shared' })).body.slug as string;
    // A session made on one instance is valid on the other (sessions are in the database).
    const cookie = await signInAs(a.baseUrl, OWNER_ID);
    const csrf = await csrfTokenFor(b.baseUrl, cookie);

    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1)
      statuses.push((await request(i % 2 ? b.baseUrl : a.baseUrl).get(`/paste/${slug}`)).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const eleventh = await request(b.baseUrl).get(`/paste/${slug}`);
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers['x-ratelimit-limit']).toBe('10');

    // The owner raises the limit through instance B; instance A learns it from the database.
    const saved = await request(b.baseUrl)
      .post('/api/settings/security')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .send({ webRateLimit: 20 });
    expect(saved.status).toBe(200);
    await expect
      .poll(async () => (await request(a.baseUrl).get(`/paste/${slug}`)).headers['x-ratelimit-limit'], {
        timeout: 5000,
        interval: 150,
      })
      .toBe('20');
  });
});
