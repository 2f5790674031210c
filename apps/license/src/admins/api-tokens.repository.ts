import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

/** A token as the console lists it (the token itself is never stored). */
const apiTokenRow = z.object({
  id: z.string(),
  adminUserId: z.string(),
  label: z.string().nullable(),
  createdAt: z.date(),
  expiresAt: z.date(),
  revokedAt: z.date().nullable(),
});
export type ApiTokenRow = z.infer<typeof apiTokenRow>;

const columns =
  'id, admin_user_id AS "adminUserId", label, created_at AS "createdAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"';

export async function insertApiToken(
  db: Queryable,
  token: { id: string; adminUserId: string; label: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    'INSERT INTO api_tokens (id, admin_user_id, label, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
    [token.id, token.adminUserId, token.label, token.createdAt, token.expiresAt],
  );
}

/** The newest tokens first. */
export async function listApiTokens(db: Queryable, limit: number): Promise<ApiTokenRow[]> {
  const { rows } = await db.query(`SELECT ${columns} FROM api_tokens ORDER BY created_at DESC, id LIMIT $1`, [limit]);
  return parseRows(apiTokenRow, rows);
}

export async function findApiToken(db: Queryable, id: string): Promise<ApiTokenRow | undefined> {
  const { rows } = await db.query(`SELECT ${columns} FROM api_tokens WHERE id = $1`, [id]);
  return parseRows(apiTokenRow, rows)[0];
}

/** Revokes a token; false when there is none or it was already revoked. */
export async function revokeApiToken(db: Queryable, id: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [
    id,
    at,
  ]);
  return rowCount === 1;
}
