import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

const claimedRow = z.object({
  license_id: z.string(),
  key: z.string(),
  customer_id: z.string().nullable(),
  product_id: z.string(),
  day: z.string(),
  addresses: z.number(),
  address_limit: z.number(),
});
export type SharingSuspicion = z.infer<typeof claimedRow>;

/**
 * Claims up to `limit` sharing flags not announced yet (oldest first) and marks them announced,
 * in one statement: two instances never claim the same flag, so each is announced once. A flag of
 * a license deleted since is dropped with it.
 */
export async function claimSharingFlags(db: Queryable, now: Date, limit: number): Promise<SharingSuspicion[]> {
  await db.query(
    `DELETE FROM license_sharing_flags f WHERE f.announced_at IS NULL AND NOT EXISTS (SELECT 1 FROM licenses l WHERE l.id = f.license_id)`,
  );
  const { rows } = await db.query(
    `WITH due AS (
       SELECT license_id, day FROM license_sharing_flags WHERE announced_at IS NULL
        ORDER BY flagged_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE license_sharing_flags f SET announced_at = $1 FROM due, licenses l
      WHERE f.license_id = due.license_id AND f.day = due.day AND l.id = f.license_id
     RETURNING f.license_id, l.key, l.customer_id, l.product_id, to_char(f.day, 'YYYY-MM-DD') AS day,
       f.addresses, f.address_limit`,
    [now, limit],
  );
  return parseRows(claimedRow, rows);
}
