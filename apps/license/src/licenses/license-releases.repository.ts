import { parseRow, type Queryable } from '@app/db';
import { z } from 'zod';

// The release limit's counter (license-releases.table.ts). Callers hold the license's row lock
// (SELECT ... FOR UPDATE) around the count and the record, so simultaneous releases of one
// license are counted one after another and never pass the limit.

/** Releases of the license after `since`. */
export async function countReleasesSince(db: Queryable, licenseId: string, since: Date): Promise<number> {
  const { rows } = await db.query(
    'SELECT count(*)::int AS n FROM license_releases WHERE license_id = $1 AND released_at > $2',
    [licenseId, since],
  );
  return parseRow(z.object({ n: z.number() }), rows).n;
}

/** Records a release at `at`, and forgets the license's releases at or before `forgetUntil` (out of every window now). */
export async function recordRelease(db: Queryable, licenseId: string, at: Date, forgetUntil: Date): Promise<void> {
  await db.query('DELETE FROM license_releases WHERE license_id = $1 AND released_at <= $2', [licenseId, forgetUntil]);
  await db.query('INSERT INTO license_releases (license_id, released_at) VALUES ($1, $2)', [licenseId, at]);
}
