import { parseRows, type Queryable, type RowOf } from '@app/db';
import { z } from 'zod';
import type { admins } from './admins.table.js';

export type AdminRow = Pick<RowOf<typeof admins>, 'id' | 'user_id' | 'username'>;
const adminRow = z.object({ id: z.string(), user_id: z.string(), username: z.string().nullable() });
const adminTokenRow = adminRow.extend({ revoked: z.boolean() });

/** An admin as the console lists them. */
const adminListRow = z.object({
  userId: z.string(),
  username: z.string().nullable(),
  createdAt: z.date(),
  lastSignInAt: z.date().nullable(),
});
export type AdminListRow = z.infer<typeof adminListRow>;
const userIdRow = z.object({ user_id: z.string() });

export async function findAdminByUserId(db: Queryable, userId: string): Promise<AdminRow | undefined> {
  const { rows } = await db.query(
    'SELECT id, user_id, username FROM admins WHERE user_id = $1 AND removed_at IS NULL',
    [userId],
  );
  return parseRows(adminRow, rows)[0];
}

/**
 * The admin a bearer token names, with whether the token's `jti` is revoked, in one statement
 * (the token lookup is by primary key). No row: not an admin.
 */
export async function findAdminForToken(
  db: Queryable,
  userId: string,
  tokenId: string | undefined,
): Promise<(AdminRow & { revoked: boolean }) | undefined> {
  const { rows } = await db.query(
    `SELECT id, user_id, username,
            EXISTS (SELECT 1 FROM api_tokens WHERE id = $2 AND revoked_at IS NOT NULL) AS revoked
       FROM admins WHERE user_id = $1 AND removed_at IS NULL`,
    [userId, tokenId ?? null],
  );
  return parseRows(adminTokenRow, rows)[0];
}

/** Registers admins by provider user id; ids already known, removed ones included, are left as they are. */
export async function ensureAdmins(db: Queryable, userIds: string[]): Promise<void> {
  if (!userIds.length) return;
  await db.query(
    `INSERT INTO admins (user_id, username) SELECT id, id FROM unnest($1::text[]) AS id
     ON CONFLICT (user_id) DO NOTHING`,
    [userIds],
  );
}

/** A sign-in: the provider's name and the time. */
export async function recordAdminSignIn(db: Queryable, userId: string, username: string, at: Date): Promise<void> {
  await db.query(
    'UPDATE admins SET username = $2, last_sign_in_at = $3, updated_at = now() WHERE user_id = $1 AND removed_at IS NULL',
    [userId, username, at],
  );
}

export async function listAdmins(db: Queryable): Promise<AdminListRow[]> {
  const { rows } = await db.query(
    `SELECT user_id AS "userId", username, created_at AS "createdAt", last_sign_in_at AS "lastSignInAt"
       FROM admins WHERE removed_at IS NULL ORDER BY created_at, user_id`,
  );
  return parseRows(adminListRow, rows);
}

/**
 * Adds an admin, or brings a removed one back (as newly added). False when the id is already an
 * admin. The username stays unknown until they sign in.
 */
export async function addAdmin(db: Queryable, userId: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO admins (user_id, username, created_at, updated_at) VALUES ($1, NULL, $2, $2)
     ON CONFLICT (user_id) DO UPDATE SET removed_at = NULL, username = NULL, last_sign_in_at = NULL, created_at = $2, updated_at = $2
       WHERE admins.removed_at IS NOT NULL`,
    [userId, at],
  );
  return rowCount === 1;
}

/**
 * Locks every current admin's row and answers their ids. Call inside a transaction before a
 * removal: two simultaneous removals then see each other's result (a row removed meanwhile is
 * skipped by FOR UPDATE's re-check), so they cannot both pass the "another admin remains" check.
 */
export async function lockCurrentAdmins(db: Queryable): Promise<string[]> {
  const { rows } = await db.query('SELECT user_id FROM admins WHERE removed_at IS NULL ORDER BY user_id FOR UPDATE');
  return parseRows(userIdRow, rows).map((row) => row.user_id);
}

export async function markAdminRemoved(db: Queryable, userId: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE admins SET removed_at = $2, updated_at = $2 WHERE user_id = $1 AND removed_at IS NULL',
    [userId, at],
  );
  return rowCount === 1;
}
