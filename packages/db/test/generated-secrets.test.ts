import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepGeneratedSecret, type Database } from '../src/index.js';
import { createTestDatabase, testDatabaseBackend } from '../src/testing/index.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A service's generated session secret on a database server: made once, whoever starts first.
const folder = mkdtempSync(path.join(os.tmpdir(), 'generated-secrets-'));
mkdirSync(path.join(folder, 'meta'));
writeFileSync(
  path.join(folder, '0000_secrets.sql'),
  'CREATE TABLE "demo_generated_secrets" ("name" text PRIMARY KEY, "value" text NOT NULL, "created_at" timestamptz NOT NULL DEFAULT now());',
);
writeFileSync(
  path.join(folder, 'meta/_journal.json'),
  JSON.stringify({
    version: '7',
    dialect: 'postgresql',
    entries: [{ idx: 0, version: '7', when: 1763776800000, tag: '0000_secrets', breakpoints: true }],
  }),
);

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase(folder);
});
afterAll(async () => {
  await database?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe(`a generated secret kept in the database (${testDatabaseBackend()})`, () => {
  it('when eight instances start at once, one secret is stored and all of them use it', async () => {
    // A connection each on a server, as separate processes would have; the embedded database has
    // one. Clients rather than pools: a client's end() waits until its connection is closed, where
    // a pool's end() returns while its client is still closing, and the DROP DATABASE of afterAll
    // would then terminate that connection under it.
    const clients =
      database.mode === 'server'
        ? await Promise.all(
            Array.from({ length: 8 }, async () => {
              const client = new pg.Client({ connectionString: database.url });
              await client.connect();
              return client;
            }),
          )
        : [];
    const connections = database.mode === 'server' ? clients : Array.from({ length: 8 }, () => database.pool);
    try {
      let made = 0;
      const answers = await Promise.all(
        connections.map((connection) =>
          keepGeneratedSecret(connection, 'demo_generated_secrets', 'session-secret', () => `secret-${++made}`),
        ),
      );
      expect(new Set(answers.map((answer) => answer.value)).size).toBe(1);
      expect(answers.filter((answer) => answer.created)).toHaveLength(1);
      const again = await keepGeneratedSecret(
        database.pool,
        'demo_generated_secrets',
        'session-secret',
        () => 'a later one',
      );
      expect(again).toEqual({ value: answers[0]!.value, created: false });
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });
});
