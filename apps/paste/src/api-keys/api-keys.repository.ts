import { parseRow, parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { apiKeysTable } from './api-keys.table.js';

/** A key as the owner's list shows it: never its hash. */
export type ApiKeySummary = Pick<
  typeof apiKeysTable.$inferSelect,
  'id' | 'name' | 'prefix' | 'createdAt' | 'lastUsedAt'
>;
const apiKeySummaryRow: z.ZodType<ApiKeySummary> = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
});

const columns = `id, name, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

export async function insertApiKey(
  db: Queryable,
  name: string,
  keyHash: string,
  prefix: string,
): Promise<ApiKeySummary> {
  const { rows } = await db.query(
    `INSERT INTO api_keys (name, key_hash, prefix) VALUES ($1, $2, $3) RETURNING ${columns}`,
    [name, keyHash, prefix],
  );
  return parseRow(apiKeySummaryRow, rows);
}

export async function listApiKeys(db: Queryable): Promise<ApiKeySummary[]> {
  const { rows } = await db.query(`SELECT ${columns} FROM api_keys ORDER BY created_at DESC, id`);
  return parseRows(apiKeySummaryRow, rows);
}

export async function removeApiKey(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM api_keys WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/**
 * Finds a key by its hash and records its use, in one statement. The use is written at most
 * once a minute: a program sending many requests with one key must not queue them all on
 * that key's row lock.
 */
export async function useApiKey(db: Queryable, keyHash: string): Promise<boolean> {
  // row-check: hot path, asserted for speed
  const { rows } = await db.query<{ found: number }>(
    `WITH found AS (SELECT id, last_used_at FROM api_keys WHERE key_hash = $1),
              touched AS (UPDATE api_keys SET last_used_at = now() FROM found
                           WHERE api_keys.id = found.id
                             AND (found.last_used_at IS NULL OR found.last_used_at < now() - interval '1 minute'))
         SELECT count(*)::int AS found FROM found`,
    [keyHash],
  );
  return (rows[0]?.found ?? 0) > 0;
}
