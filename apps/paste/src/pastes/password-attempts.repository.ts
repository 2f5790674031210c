import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

export interface PasswordCheck {
  passwordHash: string | null;
  /** Wrong passwords for the paste in its window still open (0 when none is). */
  pasteFailures: number;
  /** Wrong passwords from the address in its window still open (0 when none is). */
  addressFailures: number;
}

/** Where each kind of window stands: a window started at or before its instant is over. */
export interface OpenWindows {
  pasteOpenedAfter: Date;
  addressOpenedAfter: Date;
}

const recordedFailureRow = z.object({
  /** The address's wrong passwords of its open window, this one included. */
  addressFailures: z.number(),
  /**
   * The paste's wrong passwords of its open window, this one included; null when this one was
   * not counted against the paste because the address was already over its own limit.
   */
  pasteFailures: z.number().nullable(),
});
export type RecordedFailure = z.infer<typeof recordedFailureRow>;

/**
 * Wrong paste passwords, counted in the database per paste and per (paste, client address):
 * every instance sees the same counts, and each wrong attempt is one atomic statement over both,
 * so concurrent guesses are counted exactly.
 */
export function createPasswordAttemptsRepository(db: Queryable) {
  return {
    /**
     * The paste's password hash and the wrong attempts of the open windows, the paste's and the
     * address's; `undefined` for an unknown slug.
     */
    async find(slug: string, address: string, windows: OpenWindows): Promise<PasswordCheck | undefined> {
      // row-check: hot path, asserted for speed
      const { rows } = await db.query<{
        passwordHash: string | null;
        pasteFailures: number | null;
        addressFailures: number | null;
      }>(
        `SELECT p.password_hash AS "passwordHash",
                (SELECT failures FROM paste_password_attempts
                  WHERE paste_id = p.id AND window_started_at > $3) AS "pasteFailures",
                (SELECT failures FROM paste_password_attempts_by_address
                  WHERE paste_id = p.id AND address = $2 AND window_started_at > $4) AS "addressFailures"
           FROM pastes p
          WHERE p.slug = $1`,
        [slug, address, windows.pasteOpenedAfter, windows.addressOpenedAfter],
      );
      const row = rows[0];
      return (
        row && {
          passwordHash: row.passwordHash,
          pasteFailures: Number(row.pasteFailures ?? 0),
          addressFailures: Number(row.addressFailures ?? 0),
        }
      );
    },

    /**
     * Counts one wrong password from `address`, in one statement: against the address, and
     * against the paste unless the address was already past `maxPerAddress` (one address never
     * adds more than its own limit to the paste's count, however many guesses it sends at once).
     * A window that is over starts again at 1, opening at `now`. Concurrent calls wait for each
     * other on the rows' locks (the address's row first, always), so each gets its own numbers.
     * `undefined` when the paste no longer exists.
     */
    async recordFailure(
      slug: string,
      address: string,
      now: Date,
      windows: OpenWindows,
      maxPerAddress: number,
    ): Promise<RecordedFailure | undefined> {
      const { rows } = await db.query(
        `WITH by_address AS (
           INSERT INTO paste_password_attempts_by_address AS a (paste_id, address, window_started_at, failures)
           SELECT id, $2, $3, 1 FROM pastes WHERE slug = $1
           ON CONFLICT (paste_id, address) DO UPDATE SET
             failures = CASE WHEN a.window_started_at > $5 THEN a.failures + 1 ELSE 1 END,
             window_started_at = CASE WHEN a.window_started_at > $5 THEN a.window_started_at ELSE $3 END
           RETURNING paste_id, failures
         ), per_paste AS (
           INSERT INTO paste_password_attempts AS p (paste_id, window_started_at, failures)
           SELECT paste_id, $3, 1 FROM by_address WHERE failures <= $6
           ON CONFLICT (paste_id) DO UPDATE SET
             failures = CASE WHEN p.window_started_at > $4 THEN p.failures + 1 ELSE 1 END,
             window_started_at = CASE WHEN p.window_started_at > $4 THEN p.window_started_at ELSE $3 END
           RETURNING failures
         )
         SELECT b.failures AS "addressFailures", (SELECT failures FROM per_paste) AS "pasteFailures" FROM by_address b`,
        [slug, address, now, windows.pasteOpenedAfter, windows.addressOpenedAfter, maxPerAddress],
      );
      return parseRows(recordedFailureRow, rows)[0];
    },

    /** Deletes the per-address counts whose window is over (they would only ever start again at 1). */
    async deleteEndedAddressWindows(addressOpenedAfter: Date): Promise<number> {
      const { rowCount } = await db.query(
        'DELETE FROM paste_password_attempts_by_address WHERE window_started_at <= $1',
        [addressOpenedAfter],
      );
      return rowCount ?? 0;
    },
  };
}

export type PasswordAttemptsRepository = ReturnType<typeof createPasswordAttemptsRepository>;
