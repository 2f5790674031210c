import { bigint, boolean, date, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Usage records waiting to be folded into the daily rollups (migration 0025_usage_rollup_queue.sql):
 * appended by the statement trigger on usage_records in the validation's transaction, taken with
 * DELETE ... RETURNING by usage_rollup_fold_v1, so each is folded exactly once. No index: it
 * only grows between two folds (a second).
 */
export const usageRollupQueue = pgTable('usage_rollup_queue', {
  licenseId: uuid('license_id'),
  ip: text('ip'),
  hwid: text('hwid'),
  reason: text('reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

/**
 * Each license's validations of the 30 UTC days ending usage_license_window_state.last_day (the
 * dashboard's top licenses, read through the total index), kept by the fold.
 */
export const usageLicenseWindow = pgTable(
  'usage_license_window',
  {
    licenseId: uuid('license_id').notNull(),
    productId: uuid('product_id'),
    ok: bigint('ok', { mode: 'number' }).notNull().default(0),
    refused: bigint('refused', { mode: 'number' }).notNull().default(0),
    total: bigint('total', { mode: 'number' }).notNull().default(0),
  },
  (table) => [
    primaryKey({ name: 'usage_license_window_pk', columns: [table.licenseId] }),
    index('usage_license_window_total_idx').on(table.total.desc(), table.licenseId),
    index('usage_license_window_product_idx').on(table.productId, table.total.desc(), table.licenseId),
  ],
);

/** The last day of usage_license_window's 30 (one row). */
export const usageLicenseWindowState = pgTable('usage_license_window_state', {
  id: boolean('id').primaryKey().default(true),
  lastDay: date('last_day', { mode: 'string' }),
});
