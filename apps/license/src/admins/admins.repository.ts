import type { Queryable, RowOf } from '@app/db';
import type { admins } from './admins.table.js';

export type AdminRow = Pick<RowOf<typeof admins>, 'id' | 'user_id' | 'username'>;

export async function findAdminByUserId(db: Queryable, userId: string): Promise<AdminRow | undefined> {
  const { rows } = await db.query<AdminRow>('SELECT id, user_id, username FROM admins WHERE user_id = $1', [userId]);
  return rows[0];
}

/** Registers admins by provider user id; existing ones are left as they are. */
export async function ensureAdmins(db: Queryable, userIds: string[]): Promise<void> {
  if (!userIds.length) return;
  await db.query(
    `INSERT INTO admins (user_id, username) SELECT id, id FROM unnest($1::text[]) AS id
     ON CONFLICT (user_id) DO NOTHING`,
    [userIds],
  );
}

export async function updateAdminUsername(db: Queryable, userId: string, username: string): Promise<void> {
  await db.query('UPDATE admins SET username = $2, updated_at = now() WHERE user_id = $1 AND username IS DISTINCT FROM $2', [userId, username]);
}
