import type { Queryable } from '@app/db';

// usage_records is written in two places on purpose: validation appends every attempt inside
// `license_validate_batch` (validation/validate-batch.sql, one statement per batch for speed),
// and this file removes rows. See test/table-owners.test.ts.

/** usage_records has no foreign key (see usage.table.ts): a deleted license's rows go with it here. */
export async function deleteUsageOfLicense(db: Queryable, licenseId: string): Promise<void> {
  await db.query('DELETE FROM usage_records WHERE license_id = $1', [licenseId]);
}
