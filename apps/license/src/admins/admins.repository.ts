import type { Queryable } from '@app/db';

export interface AdminRow { id: string; user_id: string; username: string | null }

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
