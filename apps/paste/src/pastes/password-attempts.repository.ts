import type { Queryable } from '@app/db';

export interface PasswordCheck {
  passwordHash: string | null;
  /** Wrong passwords in the window that is still open at `now` (0 when none is). */
  failures: number;
}

/**
 * Wrong paste passwords, counted in the database: every instance sees one count, and each wrong
 * attempt is one atomic statement, so concurrent guesses are counted exactly.
 */
export function createPasswordAttemptsRepository(db: Queryable) {
  return {
    /**
     * The paste's password hash and the wrong attempts of the window open at `now` (a window
     * started at or before `windowOpenedAfter` is over); `undefined` for an unknown slug.
     */
    async find(slug: string, windowOpenedAfter: Date): Promise<PasswordCheck | undefined> {
      const { rows } = await db.query<PasswordCheck>(
        `SELECT p.password_hash AS "passwordHash",
                CASE WHEN a.window_started_at > $2 THEN a.failures ELSE 0 END AS failures
           FROM pastes p LEFT JOIN paste_password_attempts a ON a.paste_id = p.id
          WHERE p.slug = $1`,
        [slug, windowOpenedAfter]);
      return rows[0] ? { passwordHash: rows[0].passwordHash, failures: Number(rows[0].failures ?? 0) } : undefined;
    },

    /**
     * Counts one wrong password and answers the count of the open window, this one included. A
     * window started at or before `windowOpenedAfter` is over: the count starts again at 1 with
     * a window starting `now`. Concurrent calls wait for each other on the row's lock, so each
     * gets its own number. `undefined` when the paste no longer exists.
     */
    async recordFailure(slug: string, now: Date, windowOpenedAfter: Date): Promise<number | undefined> {
      const { rows } = await db.query<{ failures: number }>(
        `INSERT INTO paste_password_attempts AS a (paste_id, window_started_at, failures)
         SELECT id, $2, 1 FROM pastes WHERE slug = $1
         ON CONFLICT (paste_id) DO UPDATE SET
           failures = CASE WHEN a.window_started_at > $3 THEN a.failures + 1 ELSE 1 END,
           window_started_at = CASE WHEN a.window_started_at > $3 THEN a.window_started_at ELSE $2 END
         RETURNING failures`,
        [slug, now, windowOpenedAfter]);
      return rows[0]?.failures;
    },
  };
}

export type PasswordAttemptsRepository = ReturnType<typeof createPasswordAttemptsRepository>;
