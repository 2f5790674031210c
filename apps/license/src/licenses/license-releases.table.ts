import { bigserial, index, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';
import { licenses } from './licenses.table.js';

/**
 * One row per IP or hardware id a customer released from a license, kept for the release limit's
 * window (CUSTOMER_RELEASES_PER_DAY in any 24 hours): the count reads an index range of one
 * license's recent rows instead of the audit log. Rows older than the window are deleted by the
 * next release of the same license (license-releases.repository.ts).
 */
export const licenseReleases = pgTable(
  'license_releases',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    licenseId: uuid('license_id')
      .notNull()
      .references(() => licenses.id, { onDelete: 'cascade' }),
    releasedAt: timestamp('released_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('license_releases_license_released_idx').on(table.licenseId, table.releasedAt)],
);
