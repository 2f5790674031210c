import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import type { adminTwoFactor } from './two-factor.table.js';

/** The columns the checks need (selected with their schema names). */
export type TwoFactorRow = Pick<
  typeof adminTwoFactor.$inferSelect,
  'enabled' | 'secret' | 'pendingSecret' | 'lastUsedStep'
>;
const twoFactorRow: z.ZodType<TwoFactorRow> = z.object({
  enabled: z.boolean(),
  secret: z.string().nullable(),
  pendingSecret: z.string().nullable(),
  lastUsedStep: z.number().nullable(),
});
const attemptsRow = z.object({ attempts: z.number() });
const backupCodeRow = z.object({ id: z.string(), codeHash: z.string() });
const countRow = z.object({ count: z.number() });

export async function findTwoFactor(db: Queryable, userId: string): Promise<TwoFactorRow | undefined> {
  const { rows } = await db.query(
    `SELECT enabled, secret, pending_secret AS "pendingSecret", last_used_step AS "lastUsedStep"
       FROM admin_two_factor WHERE user_id = $1`,
    [userId],
  );
  return parseRows(twoFactorRow, rows)[0];
}

/** Stores the secret handed out by setup; refused (false) once two-factor is enabled. */
export async function savePendingSecret(db: Queryable, userId: string, sealedSecret: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO admin_two_factor (user_id, pending_secret) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET pending_secret = EXCLUDED.pending_secret, updated_at = now()
       WHERE admin_two_factor.enabled = false`,
    [userId, sealedSecret],
  );
  return rowCount === 1;
}

/**
 * Counts one code attempt and answers the count within the current window. Counting before
 * the code is checked (in one statement) means parallel guesses cannot slip past the limit.
 */
export async function countAttempt(db: Queryable, userId: string, now: Date, windowMs: number): Promise<number> {
  const { rows } = await db.query(
    `INSERT INTO admin_two_factor (user_id, attempts, attempts_window_start) VALUES ($1, 1, $2)
     ON CONFLICT (user_id) DO UPDATE SET
       attempts = CASE WHEN admin_two_factor.attempts_window_start IS NULL
                         OR admin_two_factor.attempts_window_start <= $2::timestamptz - make_interval(secs => $3 / 1000.0)
                       THEN 1 ELSE admin_two_factor.attempts + 1 END,
       attempts_window_start = CASE WHEN admin_two_factor.attempts_window_start IS NULL
                         OR admin_two_factor.attempts_window_start <= $2::timestamptz - make_interval(secs => $3 / 1000.0)
                       THEN $2 ELSE admin_two_factor.attempts_window_start END
     RETURNING attempts`,
    [userId, now, windowMs],
  );
  return parseRows(attemptsRow, rows)[0]?.attempts ?? 1;
}

export async function resetAttempts(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE admin_two_factor SET attempts = 0, attempts_window_start = NULL WHERE user_id = $1', [userId]);
}

/** Turns two-factor on with the confirmed secret and a fresh set of backup codes; false when already on. */
export async function enableTwoFactor(
  db: Queryable,
  userId: string,
  sealedSecret: string,
  codeHashes: string[],
  now: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE admin_two_factor SET enabled = true, secret = $2, pending_secret = NULL, enabled_at = $3,
            last_used_step = NULL, updated_at = now()
      WHERE user_id = $1 AND enabled = false`,
    [userId, sealedSecret, now],
  );
  if (rowCount !== 1) return false;
  await db.query('DELETE FROM admin_backup_codes WHERE user_id = $1', [userId]);
  await db.query('INSERT INTO admin_backup_codes (user_id, code_hash) SELECT $1, unnest($2::text[])', [
    userId,
    codeHashes,
  ]);
  return true;
}

export async function disableTwoFactor(db: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE admin_two_factor SET enabled = false, secret = NULL, pending_secret = NULL, enabled_at = NULL,
            last_used_step = NULL, updated_at = now()
      WHERE user_id = $1 AND enabled = true`,
    [userId],
  );
  await db.query('DELETE FROM admin_backup_codes WHERE user_id = $1', [userId]);
  return rowCount === 1;
}

/** Records the time step of an accepted code; false when that step (or a later one) was already used. */
export async function useTimeStep(db: Queryable, userId: string, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE admin_two_factor SET last_used_step = $2
      WHERE user_id = $1 AND enabled = true AND (last_used_step IS NULL OR last_used_step < $2)`,
    [userId, step],
  );
  return rowCount === 1;
}

export async function unusedBackupCodes(db: Queryable, userId: string): Promise<{ id: string; codeHash: string }[]> {
  const { rows } = await db.query(
    'SELECT id, code_hash AS "codeHash" FROM admin_backup_codes WHERE user_id = $1 AND used_at IS NULL',
    [userId],
  );
  return parseRows(backupCodeRow, rows);
}

/** Spends a backup code; false when a parallel request spent it first. */
export async function spendBackupCode(db: Queryable, userId: string, id: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE admin_backup_codes SET used_at = $3 WHERE id = $1 AND user_id = $2 AND used_at IS NULL',
    [id, userId, now],
  );
  return rowCount === 1;
}

export async function countUnusedBackupCodes(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query(
    'SELECT count(*) AS count FROM admin_backup_codes WHERE user_id = $1 AND used_at IS NULL',
    [userId],
  );
  return parseRows(countRow, rows)[0]?.count ?? 0;
}
