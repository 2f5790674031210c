import { bigint, date, index, pgTable, primaryKey, smallint, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/**
 * Validation attempts per UTC day, license, outcome ('' for a success, else the error text) and
 * shard (4, drawn per statement; readers sum them). Unknown keys count under a null license and
 * product (the unique index treats nulls as equal). Written only by the trigger of migration
 * 0022_usage_insight.sql, in the same transaction as each usage_records insert; kept forever
 * (raw records are kept USAGE_RETENTION_DAYS).
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    licenseId: uuid('license_id'),
    productId: uuid('product_id'),
    outcome: text('outcome').notNull(),
    shard: smallint('shard').notNull(),
    records: bigint('records', { mode: 'number' }).notNull().default(0),
  },
  (table) => [
    // NULLS NOT DISTINCT in the migration: the unknown keys' rows (null license) are one row a day too.
    uniqueIndex('usage_daily_key').on(table.day, table.licenseId, table.outcome, table.shard),
    index('usage_daily_license_idx').on(table.licenseId, table.day),
  ],
);

/** Each distinct address ('ip') and hardware id ('hwid') a license was validated from, per UTC day (same trigger). */
export const usageDailySightings = pgTable(
  'usage_daily_sightings',
  {
    day: date('day', { mode: 'string' }).notNull(),
    licenseId: uuid('license_id').notNull(),
    kind: text('kind').$type<'ip' | 'hwid'>().notNull(),
    value: text('value').notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.licenseId, table.kind, table.value] })],
);

/** How many distinct hardware ids (machines) and addresses a license was validated from, per UTC day (same trigger). */
export const usageDailyDevices = pgTable(
  'usage_daily_devices',
  {
    day: date('day', { mode: 'string' }).notNull(),
    licenseId: uuid('license_id').notNull(),
    productId: uuid('product_id'),
    machines: bigint('machines', { mode: 'number' }).notNull().default(0),
    addresses: bigint('addresses', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.licenseId] })],
);

/** usage_daily summed per product (null: unknown keys), so product-wide days read a few rows (same trigger). */
export const usageDailyProducts = pgTable(
  'usage_daily_products',
  {
    day: date('day', { mode: 'string' }).notNull(),
    productId: uuid('product_id'),
    outcome: text('outcome').notNull(),
    shard: smallint('shard').notNull(),
    records: bigint('records', { mode: 'number' }).notNull().default(0),
  },
  // NULLS NOT DISTINCT in the migration, as usage_daily's.
  (table) => [uniqueIndex('usage_daily_products_key').on(table.day, table.productId, table.outcome, table.shard)],
);

/** usage_daily_devices summed per product (same trigger). */
export const usageDailyProductDevices = pgTable(
  'usage_daily_product_devices',
  {
    day: date('day', { mode: 'string' }).notNull(),
    productId: uuid('product_id').notNull(),
    machines: bigint('machines', { mode: 'number' }).notNull().default(0),
    addresses: bigint('addresses', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.productId] })],
);
