import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { licenses } from '../licenses/licenses.table.js';

/**
 * A license's hardware ids with a record each: `licenses.used_hwids` (the list validation reads
 * in its one statement) and these rows always hold the same fingerprints, kept so by the
 * trigger of migration 0011_machines.sql in the same transaction as any change of the list.
 */
export const machines = pgTable(
  'machines',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    licenseId: uuid('license_id')
      .notNull()
      .references(() => licenses.id, { onDelete: 'cascade' }),
    fingerprint: text('fingerprint').notNull(),
    name: text('name'),
    platform: text('platform'),
    lastIp: text('last_ip'),
    activatedAt: timestamp('activated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** Its activation, last heartbeat or last validation (validations refresh it at most once a minute unless it has a lease). */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** Floating seats only (`licenses.heartbeat_seconds`): past this instant the machine holds no seat. */
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('machines_license_fingerprint_idx').on(table.licenseId, table.fingerprint),
    // The sweep reads the lapsed leases in order; machines without a lease are not in it.
    index('machines_lease_idx')
      .on(table.leaseExpiresAt)
      .where(sql`${table.leaseExpiresAt} IS NOT NULL`),
  ],
);
