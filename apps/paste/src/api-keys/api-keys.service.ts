import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { uniqueViolation, type Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import { insertApiKey, listApiKeys, removeApiKey, useApiKey, type ApiKeySummary } from './api-keys.repository.js';

/** A key as the owner's list shows it (the owner's pages show them too). */
export type { ApiKeySummary };

const KEY_PREFIX = 'pk_';

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** The key a request carries: `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export function keyFromRequest(req: Request): string | undefined {
  const authorization = req.headers.authorization;
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (bearer) return bearer;
  const header = req.headers['x-api-key'];
  return typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined;
}

export function createApiKeyService(deps: { db: Queryable }) {
  const { db } = deps;
  return {
    /** Creates a key; the secret is returned here once and only its hash is kept. */
    async create(name: string): Promise<ApiKeySummary & { key: string }> {
      const key = KEY_PREFIX + randomBytes(32).toString('base64url');
      try {
        const summary = await insertApiKey(db, name, hashKey(key), key.slice(0, KEY_PREFIX.length + 6));
        return { ...summary, key };
      } catch (error) {
        // 256 random bits: a taken key is all but impossible, yet answered as a conflict.
        if (uniqueViolation(error) === 'api_keys_key_hash_unique') throw appError('PASTE_API_KEY_TAKEN');
        throw error;
      }
    },

    list: () => listApiKeys(db),

    async remove(id: string): Promise<void> {
      if (!(await removeApiKey(db, id))) throw appError('PASTE_API_KEY_NOT_FOUND');
    },

    /** 401 `API key required` / `Invalid API key` unless the request carries a known key. */
    async authenticate(req: Request): Promise<void> {
      const key = keyFromRequest(req);
      if (!key) throw appError('PASTE_API_KEY_REQUIRED');
      if (!(await useApiKey(db, hashKey(key)))) throw appError('PASTE_API_KEY_INVALID');
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
