import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createSettingsStore, settingsPatchSchema, type SettingsStore } from '../src/index.js';

const migrations = path.join(import.meta.dirname, 'fixtures/migrations');

const schema = z.object({
  siteName: z.string().min(1).default('Paste'),
  slugLength: z.number().int().min(4).max(64).default(8),
  rateLimit: z
    .object({
      limit: z.number().int().min(1).default(100),
      windowMinutes: z.number().int().min(1).default(15),
    })
    .default({ limit: 100, windowMinutes: 15 }),
});
type Settings = z.infer<typeof schema>;

const until = async (check: () => boolean, timeoutMs: number) => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - start;
};

describe(`settings store (${testDatabaseBackend()})`, () => {
  let database: Database;
  const stores: SettingsStore<Settings>[] = [];
  const open = async (namespace: string, refreshMs = 100) => {
    const store = await createSettingsStore({ pool: database.pool, table: 'settings', namespace, schema, refreshMs });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await createTestDatabase(migrations);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await database?.close();
  });

  it('starts with the schema defaults when nothing is stored', async () => {
    const store = await open('defaults');
    expect(store.get()).toEqual({ siteName: 'Paste', slugLength: 8, rateLimit: { limit: 100, windowMinutes: 15 } });
  });

  it('persists an update, so a new store instance reads it', async () => {
    const store = await open('persist');
    const next = await store.update({ slugLength: 12, rateLimit: { limit: 5, windowMinutes: 1 } });
    expect(next).toMatchObject({ slugLength: 12, rateLimit: { limit: 5, windowMinutes: 1 } });
    expect(store.get()).toEqual(next);
    const reopened = await open('persist');
    expect(reopened.get()).toEqual({ siteName: 'Paste', slugLength: 12, rateLimit: { limit: 5, windowMinutes: 1 } });
    const { rows } = await database.pool.query("SELECT version FROM settings WHERE namespace = 'persist'");
    expect(rows[0].version).toBe(1);
  });

  it('rejects an invalid update with the ZodError and leaves the stored value intact', async () => {
    const store = await open('invalid');
    await store.update({ slugLength: 10 });
    await expect(store.update({ slugLength: 3 })).rejects.toBeInstanceOf(z.ZodError);
    const error = await store.update({ slugLength: 100 }).catch((caught: z.ZodError) => caught);
    expect((error as z.ZodError).issues[0]?.path).toEqual(['slugLength']);
    expect(store.get().slugLength).toBe(10);
    const reopened = await open('invalid');
    expect(reopened.get().slugLength).toBe(10);
  });

  it('fills keys missing from a stored object (written before they existed) with their defaults', async () => {
    await database.pool.query(
      `INSERT INTO settings (namespace, value, version) VALUES ('old', '{"slugLength": 6, "rateLimit": {"limit": 3}}', 4)`,
    );
    const store = await open('old');
    expect(store.get()).toEqual({ siteName: 'Paste', slugLength: 6, rateLimit: { limit: 3, windowMinutes: 15 } });
  });

  it('keeps the valid stored keys when another no longer fits the schema', async () => {
    await database.pool.query(
      `INSERT INTO settings (namespace, value, version) VALUES ('stale', '{"slugLength": 2, "siteName": "Mine"}', 1)`,
    );
    const store = await open('stale');
    expect(store.get()).toMatchObject({ siteName: 'Mine', slugLength: 8 });
  });

  it('tells listeners on this instance at once and on another instance within refreshMs', async () => {
    const first = await open('shared', 100);
    const second = await open('shared', 100);
    const seenHere: Array<[number, number]> = [];
    const seenThere: Array<[number, number]> = [];
    first.onChange((next, previous) => seenHere.push([previous.slugLength, next.slugLength]));
    second.onChange((next, previous) => seenThere.push([previous.slugLength, next.slugLength]));

    await first.update({ slugLength: 20 });
    expect(seenHere).toEqual([[8, 20]]);
    const waited = await until(() => seenThere.length > 0, 1000);
    expect(waited).toBeLessThan(500);
    expect(seenThere).toEqual([[8, 20]]);
    expect(second.get().slugLength).toBe(20);

    // A patch merges onto the latest stored value, not onto a stale cache.
    await second.update({ siteName: 'Other' });
    await until(() => first.get().siteName === 'Other', 1000);
    expect(first.get()).toMatchObject({ siteName: 'Other', slugLength: 20 });
    expect(seenHere).toHaveLength(2);
  });

  it('keeps every field of concurrent updates from two instances', async () => {
    const first = await open('concurrent', 60_000);
    const second = await open('concurrent', 60_000);
    await Promise.all([first.update({ siteName: 'A' }), second.update({ slugLength: 30 })]);
    const reopened = await open('concurrent');
    expect(reopened.get()).toMatchObject({ siteName: 'A', slugLength: 30 });
  });

  it('merges a patch into nested objects key by key, and leaves undefined keys as they are', async () => {
    const store = await open('nested');
    await store.update({ rateLimit: { limit: 7, windowMinutes: 30 } });
    const next = await store.update({ rateLimit: { limit: 9 }, siteName: undefined });
    expect(next).toEqual({ siteName: 'Paste', slugLength: 8, rateLimit: { limit: 9, windowMinutes: 30 } });
    const { rows } = await database.pool.query("SELECT value FROM settings WHERE namespace = 'nested'");
    // Keys never set stay out of the row, so their defaults can still change in a later release.
    expect(rows[0].value).toEqual({ rateLimit: { limit: 9, windowMinutes: 30 } });
  });

  it('parses a request body into a patch holding only the keys it names (no defaults)', async () => {
    const patchSchema = settingsPatchSchema(schema);
    expect(patchSchema.parse({})).toEqual({});
    expect(patchSchema.parse({ rateLimit: { windowMinutes: 5 }, unknown: 1 })).toEqual({
      rateLimit: { windowMinutes: 5 },
    });
    expect(patchSchema.safeParse({ slugLength: 2 }).success).toBe(false);
    const store = await open('patch-schema');
    await store.update({ siteName: 'Kept' });
    expect(await store.update(patchSchema.parse({ rateLimit: { windowMinutes: 5 } }))).toEqual({
      siteName: 'Kept',
      slugLength: 8,
      rateLimit: { limit: 100, windowMinutes: 5 },
    });
  });

  it('stops notifying after an unsubscribe, and the cached value cannot be mutated', async () => {
    const store = await open('unsubscribe');
    let calls = 0;
    const unsubscribe = store.onChange(() => calls++);
    await store.update({ slugLength: 9 });
    unsubscribe();
    await store.update({ slugLength: 11 });
    expect(calls).toBe(1);
    expect(() => {
      store.get().slugLength = 1;
    }).toThrow(TypeError);
  });
});
