import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { z } from 'zod';
import { parseRow, parseRows, withTransaction } from '@app/db';
import type { SettingsPatch } from './patch-schema.js';
import { deepFreeze, deepMerge, isPlainObject, resolveStored } from './merge.js';

export interface SettingsStoreOptions<T extends object> {
  pool: pg.Pool;
  /** The service's own settings table (`paste_settings`, `license_settings`), made by its migrations. */
  table: string;
  namespace: string;
  /** Every field has a `.default()`: `parse({})` gives the defaults. */
  schema: z.ZodType<T>;
  /** How often changes made by other instances are picked up, in ms. Default 2000. */
  refreshMs?: number;
}

export interface SettingsStore<T> {
  /** The cached settings (frozen); no database round trip. */
  get(this: void): T;
  /**
   * Merges `patch` (nested objects key by key) onto the stored settings, validates the result
   * (throws the ZodError), persists it and notifies listeners. Parse request bodies with
   * `settingsPatchSchema(schema)`, not `schema.partial()`: zod 4 fills defaults into a
   * partial's missing keys, which would reset every setting the request did not name.
   */
  update(patch: SettingsPatch<T>): Promise<T>;
  onChange(listener: (next: T, previous: T) => void): () => void;
  /** Stops watching for other instances' changes. */
  close(): Promise<void>;
}

type Listener<T> = (next: T, previous: T) => void;

/** A namespace's row of the settings table: the keys set so far (jsonb) and its version. */
const storedRow = z.object({ value: z.unknown(), version: z.number() });
const versionRow = storedRow.pick({ version: true });
const valueRow = storedRow.pick({ value: true });

export async function createSettingsStore<T extends object>(
  options: SettingsStoreOptions<T>,
): Promise<SettingsStore<T>> {
  const { pool, namespace, schema } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(options.table)) throw new Error(`Not a settings table name: ${options.table}`);
  const table = `"${options.table}"`;
  const refreshMs = options.refreshMs ?? 2000;
  const defaults = schema.parse({});
  const listeners = new Set<Listener<T>>();
  let cache = { value: deepFreeze(defaults), version: -1 };

  /** Takes a newer version (from this instance's write or another's) and tells the listeners. */
  const apply = (stored: unknown, version: number): T => {
    if (version <= cache.version) return cache.value;
    const previous = cache.value;
    cache = { value: deepFreeze(resolveStored(schema, defaults, stored)), version };
    if (!isDeepStrictEqual(previous, cache.value)) {
      for (const listener of listeners) {
        try {
          listener(cache.value, previous);
        } catch (error) {
          process.emitWarning(`settings '${namespace}' change listener failed: ${String(error)}`);
        }
      }
    }
    return cache.value;
  };

  const load = async (): Promise<void> => {
    const { rows } = await pool.query(`SELECT value, version FROM ${table} WHERE namespace = $1`, [namespace]);
    const row = parseRows(storedRow, rows)[0];
    apply(row?.value ?? {}, row?.version ?? 0);
  };
  await load();

  // LISTEN/NOTIFY would need a connection of its own, which the embedded database does not
  // have; one indexed integer read per interval is cheap enough.
  let stopped = false;
  let inFlight: Promise<void> | undefined;
  const poll = async (): Promise<void> => {
    try {
      const { rows } = await pool.query(`SELECT version FROM ${table} WHERE namespace = $1`, [namespace]);
      const row = parseRows(versionRow, rows)[0];
      if (row && row.version > cache.version) await load();
    } catch {
      // The database is briefly unreachable: keep the cached settings and try again next time.
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = poll().finally(schedule);
    }, refreshMs);
    timer.unref();
  };
  schedule();

  return {
    get: () => cache.value,

    async update(patch) {
      const written = await withTransaction(pool, async (client) => {
        // The row lock orders concurrent writers (from any instance): each merges onto the
        // latest stored value instead of its own possibly stale cache.
        await client.query(
          `INSERT INTO ${table} (namespace, value) VALUES ($1, '{}'::jsonb) ON CONFLICT (namespace) DO NOTHING`,
          [namespace],
        );
        const { rows } = await client.query(`SELECT value FROM ${table} WHERE namespace = $1 FOR UPDATE`, [namespace]);
        const { value } = parseRow(valueRow, rows);
        const stored = isPlainObject(value) ? value : {};
        // Nested objects merge too, so a patch may name only the nested keys it changes;
        // undefined leaves a key as it is.
        const merged = deepMerge(resolveStored(schema, defaults, stored), patch);
        const valid = schema.parse(merged) as Record<string, unknown>;
        const patched = (key: string) => (patch as Record<string, unknown>)[key] !== undefined;
        // Only keys ever set are stored, so a default changed in a later release still applies
        // to the keys nobody set.
        const toStore = Object.fromEntries(
          Object.keys(valid)
            .filter((key) => key in stored || patched(key))
            .map((key) => [key, valid[key]]),
        );
        const result = await client.query(
          `UPDATE ${table} SET value = $2::jsonb, version = version + 1, updated_at = now()
            WHERE namespace = $1 RETURNING value, version`,
          [namespace, JSON.stringify(toStore)],
        );
        return parseRow(storedRow, result.rows);
      });
      return apply(written.value, written.version);
    },

    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
