import http from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { createApp, migrationsFolder, type PasteApp } from '../src/app.js';
import { pasteSettingsSchema, type PasteSettings } from '../src/settings/settings.schema.js';
import { settingsTableName } from '../src/settings/settings.table.js';
import { OWNER_ID, RELAXED_LIMITS } from './helpers.js';

interface Instance {
  baseUrl: string;
  paste: PasteApp;
  settings: SettingsStore<PasteSettings>;
  server: http.Server;
  dir: string;
}

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1e3e3a40000000049454e44ae426082',
  'hex',
);
const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>',
);

/** Two instances with uploads in the database, each with a data folder of its own, as on two machines. */
describe(`stateless instances: uploads in the database (${testDatabaseBackend()})`, () => {
  let database: Database;
  let idp: DevIdp;
  const instances: Instance[] = [];

  async function startInstance(): Promise<Instance> {
    let handler: http.RequestListener = () => {};
    const server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paste-stateless-'));
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
      uploadDir: dir,
      uploadsIn: 'database',
      logger: createLogger({ level: 'silent' }),
      bcryptRounds: 4,
    });
    handler = paste.app;
    return { baseUrl, paste, settings, server, dir };
  }

  beforeAll(async () => {
    database = await createTestDatabase(migrationsFolder);
    idp = await startDevIdp({ port: 0 });
    const seed = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: 'paste',
      schema: pasteSettingsSchema,
    });
    await seed.update(RELAXED_LIMITS);
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
      rmSync(instance.dir, { recursive: true, force: true });
    }
    await idp?.stop();
    await database?.close();
  });

  it('a logo uploaded through one instance is served by the other, the replaced one is gone, and no folder holds a file', async () => {
    const [a, b] = instances as [Instance, Instance];
    const cookie = await signInAs(a.baseUrl, OWNER_ID);
    const csrf = await csrfTokenFor(a.baseUrl, cookie);
    const upload = (file: Buffer, name: string) =>
      request(a.baseUrl)
        .post('/api/upload/logo')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf)
        .attach('logo', file, name);

    const first = await upload(PNG, 'logo.png');
    expect(first.status).toBe(200);
    const served = await request(b.baseUrl)
      .get(first.body.logoPath as string)
      .buffer(true);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['cache-control']).toContain('immutable');
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);

    const second = await upload(SVG, 'logo.svg');
    const svg = await request(b.baseUrl).get(second.body.logoPath as string);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.headers['content-security-policy']).toContain("default-src 'none'");
    expect((await request(b.baseUrl).get(first.body.logoPath as string)).status).toBe(404);
    await expect
      .poll(async () => (await request(b.baseUrl).get('/')).text, { timeout: 5000, interval: 150 })
      .toContain(second.body.logoPath);

    for (const instance of instances) expect(readdirSync(instance.dir)).toEqual([]);
    const { rows } = await database.pool.query<{ name: string }>('SELECT name FROM paste_uploads');
    expect(rows.map((row) => row.name)).toEqual([path.basename(second.body.logoPath as string)]);
  });

  it('an unknown upload name answers 404, and a path that is not an upload name is not looked up', async () => {
    const [, b] = instances as [Instance, Instance];
    expect((await request(b.baseUrl).get('/uploads/images/logo-1-2.png')).status).toBe(404);
    expect((await request(b.baseUrl).get('/uploads/images/../../etc/passwd')).status).toBe(404);
  });
});
