import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor, signInAs } from '@app/auth/testing';
import { loadConfig } from '@app/config';
import { openDatabase, runMigrations, type Database } from '@app/db';
import { NO_POSTGRES_BINARIES, postgresBinaries, startStreamingPair, type StreamingPair } from '@app/db/testing';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import { createLogger } from '@app/http';
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { createApp, migrationsFolder, type PasteApp } from '../src/app.js';
import { pasteSettingsSchema, type PasteSettings } from '../src/settings/settings.schema.js';
import { settingsTableName } from '../src/settings/settings.table.js';
import { OWNER_ID, RELAXED_LIMITS } from './helpers.js';

// The owner's list and statistics read from a real streaming replica; a session that has just
// written reads the primary for 5 s. The replica's replay is paused, so it is visibly stale.
const bin = postgresBinaries();
if (!bin) console.log(`paste read replica tests ${NO_POSTGRES_BINARIES}`);

describe.skipIf(!bin)('the paste service on a primary and a streaming replica', () => {
  let pair: StreamingPair;
  let database: Database;
  let replicaAdmin: pg.Client;
  let idp: DevIdp;
  let settings: SettingsStore<PasteSettings>;
  let paste: PasteApp;
  let server: http.Server;
  let baseUrl: string;
  const uploadDir = mkdtempSync(path.join(os.tmpdir(), 'paste-replica-'));

  beforeAll(async () => {
    pair = await startStreamingPair({ bin });
    database = await openDatabase({ url: pair.primaryUrl, replicaUrl: pair.replicaUrl, replicaLog: () => {} });
    await runMigrations(database.db, migrationsFolder, 'paste');
    replicaAdmin = new pg.Client({ connectionString: pair.replicaUrl });
    await replicaAdmin.connect();
    idp = await startDevIdp({ port: 0 });
    settings = await createSettingsStore({
      pool: database.pool,
      table: settingsTableName,
      namespace: 'paste',
      schema: pasteSettingsSchema,
    });
    await settings.update(RELAXED_LIMITS);
    let handler: http.RequestListener = () => {};
    server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    paste = createApp({
      config: loadConfig({ NODE_ENV: 'test', OWNER_ID, LOG_LEVEL: 'silent' }),
      database,
      settings,
      oauth: idp.oauth,
      publicUrl: baseUrl,
      uploadDir,
      logger: createLogger({ level: 'silent' }),
      bcryptRounds: 4,
    });
    handler = paste.app;
    await database.reads.check();
  }, 120_000);
  afterAll(async () => {
    await paste?.close();
    await settings?.close();
    server?.closeAllConnections();
    server?.close();
    await idp?.stop();
    await replicaAdmin?.end();
    await database?.close();
    await pair?.close();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('lists and statistics come from the replica; the session that just wrote reads the primary for 5 s', async () => {
    expect(database.reads.usingReplica()).toBe(true);
    const cookie = await signInAs(baseUrl, OWNER_ID);
    const csrf = await csrfTokenFor(baseUrl, cookie);
    const before = database.reads.replicaReads();
    expect((await request(baseUrl).get('/api/pastes').set('Cookie', cookie)).status).toBe(200);
    expect((await request(baseUrl).get('/api/stats').set('Cookie', cookie)).status).toBe(200);
    expect(database.reads.replicaReads()).toBeGreaterThanOrEqual(before + 2);

    await replicaAdmin.query('SELECT pg_wal_replay_pause()');
    try {
      const created = await request(baseUrl)
        .post('/api/paste')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf)
        .send({ content: 'read your own write' });
      expect(created.status).toBe(200);
      const mark = (created.headers['set-cookie'] as unknown as string[]).find((line) =>
        line.startsWith('recent-write=1'),
      );
      expect(mark).toMatch(/Max-Age=5; Path=\/; HttpOnly; SameSite=Lax/);
      const slugs = async (cookies: string) =>
        ((await request(baseUrl).get('/api/pastes').set('Cookie', cookies)).body.pastes as { slug: string }[]).map(
          (row) => row.slug,
        );
      // With the mark (within 5 s of the write): the primary, which has the paste.
      expect(await slugs(`${cookie}; recent-write=1`)).toContain(created.body.slug);
      // Without it: the replica, whose replay waits.
      expect(await slugs(cookie)).not.toContain(created.body.slug);
      // Someone else's write marks nobody: a paste created without a session sets no cookie.
      const anonymous = await request(baseUrl).post('/api/paste').send({ content: 'anonymous' });
      expect(anonymous.headers['set-cookie']).toBeUndefined();
    } finally {
      await replicaAdmin.query('SELECT pg_wal_replay_resume()');
    }
  });
});
