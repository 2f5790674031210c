import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';
import { EXPIRED_SQL, KEY_HASH_SQL } from './pastes.repository.js';

export interface PasswordCheck {
  passwordHash: string | null;
  /** Past its view or time limit. */
  expired: boolean;
  /** The keyHash of an encrypted paste with a key check; null otherwise. */
  keyHash: string | null;
  /** Wrong passwords (and wrong key checks) from the address in its window still open (0 when none is). */
  addressFailures: number;
}

const recordedFailureRow = z.object({
  /** The address's wrong attempts of its open window, this one included. */
  addressFailures: z.number(),
});
export type RecordedFailure = z.infer<typeof recordedFailureRow>;

// Wrong paste passwords and key checks, counted in the database per (paste, client address):
// every instance sees the same counts, and each wrong attempt is one atomic statement, so
// concurrent guesses are counted exactly. There is no count per paste (decisions.md wave 4):
// strangers at other addresses must never lock out the reader who has the password or the key.
// (The wave-3 table paste_password_attempts is no longer read or written.)

/**
 * What a password or key check needs in one round trip: the paste's password hash, whether it
 * is used up, its keyHash, and the address's wrong attempts of its open window (it opened after
 * `addressOpenedAfter`); `undefined` for an unknown slug.
 */
export async function findPasswordCheck(
  db: Queryable,
  slug: string,
  address: string,
  addressOpenedAfter: Date,
): Promise<PasswordCheck | undefined> {
  // row-check: hot path, asserted for speed
  const { rows } = await db.query<{
    passwordHash: string | null;
    expired: boolean;
    keyHash: string | null;
    addressFailures: number | null;
  }>(
    `SELECT p.password_hash AS "passwordHash", ${EXPIRED_SQL} AS expired, ${KEY_HASH_SQL} AS "keyHash",
                (SELECT failures FROM paste_password_attempts_by_address
                  WHERE paste_id = p.id AND address = $2 AND window_started_at > $3) AS "addressFailures"
           FROM pastes p
          WHERE p.slug = $1`,
    [slug, address, addressOpenedAfter],
  );
  const row = rows[0];
  return (
    row && {
      passwordHash: row.passwordHash,
      expired: row.expired,
      keyHash: row.keyHash,
      addressFailures: Number(row.addressFailures ?? 0),
    }
  );
}

/**
 * Counts one wrong attempt from `address`, in one statement. A window that is over (it opened
 * at or before `addressOpenedAfter`) starts again at 1, opening at `now`. Concurrent calls wait
 * for each other on the row's lock, so each gets its own number. `undefined` when the paste no
 * longer exists.
 */
export async function recordWrongAttempt(
  db: Queryable,
  slug: string,
  address: string,
  now: Date,
  addressOpenedAfter: Date,
): Promise<RecordedFailure | undefined> {
  const { rows } = await db.query(
    `INSERT INTO paste_password_attempts_by_address AS a (paste_id, address, window_started_at, failures)
         SELECT id, $2, $3, 1 FROM pastes WHERE slug = $1
         ON CONFLICT (paste_id, address) DO UPDATE SET
           failures = CASE WHEN a.window_started_at > $4 THEN a.failures + 1 ELSE 1 END,
           window_started_at = CASE WHEN a.window_started_at > $4 THEN a.window_started_at ELSE $3 END
         RETURNING failures AS "addressFailures"`,
    [slug, address, now, addressOpenedAfter],
  );
  return parseRows(recordedFailureRow, rows)[0];
}

/** Deletes the per-address counts whose window is over (they would only ever start again at 1). */
export async function deleteEndedAddressWindows(db: Queryable, addressOpenedAfter: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM paste_password_attempts_by_address WHERE window_started_at <= $1', [
    addressOpenedAfter,
  ]);
  return rowCount ?? 0;
}
