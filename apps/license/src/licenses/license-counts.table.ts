import { bigint, date, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';

/**
 * How many licenses are in each state that does not depend on the clock, per product, type and
 * UTC expiry day ('infinity' without an expiry). Written only by the triggers of migration
 * 0009_license_counts.sql, in the same transaction as each license write; read by
 * license-counts.repository.ts.
 */
export const licenseCounts = pgTable(
  'license_counts',
  {
    productId: uuid('product_id').notNull(),
    licenseType: text('license_type').notNull(),
    expiryDay: date('expiry_day').notNull(),
    total: bigint('total', { mode: 'number' }).notNull().default(0),
    /** Active, not suspended, not revoked (whether expired is decided on read). */
    live: bigint('live', { mode: 'number' }).notNull().default(0),
    /** Not active, not suspended, not revoked. */
    inactive: bigint('inactive', { mode: 'number' }).notNull().default(0),
    suspended: bigint('suspended', { mode: 'number' }).notNull().default(0),
    suspendedUnrevoked: bigint('suspended_unrevoked', { mode: 'number' }).notNull().default(0),
    revoked: bigint('revoked', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.productId, table.licenseType, table.expiryDay] })],
);
