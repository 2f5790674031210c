import type { Queryable } from '@app/db';

export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const columns = `id, name, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

export function createApiKeyRepository(db: Queryable) {
  return {
    async insert(name: string, keyHash: string, prefix: string): Promise<ApiKeySummary> {
      const { rows } = await db.query<ApiKeySummary>(
        `INSERT INTO api_keys (name, key_hash, prefix) VALUES ($1, $2, $3) RETURNING ${columns}`, [name, keyHash, prefix]);
      return rows[0]!;
    },

    async list(): Promise<ApiKeySummary[]> {
      const { rows } = await db.query<ApiKeySummary>(`SELECT ${columns} FROM api_keys ORDER BY created_at DESC, id`);
      return rows;
    },

    async remove(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM api_keys WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },

    /** Finds a key by its hash and records its use, in one statement. */
    async use(keyHash: string): Promise<boolean> {
      const { rowCount } = await db.query('UPDATE api_keys SET last_used_at = now() WHERE key_hash = $1', [keyHash]);
      return (rowCount ?? 0) > 0;
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
