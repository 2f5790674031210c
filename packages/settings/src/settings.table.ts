import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per settings namespace (e.g. 'paste'). `value` holds the keys set so far; the
 * schema's defaults fill the rest when read. `version` grows with every write, so other
 * instances learn of a change by reading one integer.
 */
export const settingsTable = pgTable('settings', {
  namespace: text('namespace').primaryKey(),
  value: jsonb('value').notNull(),
  version: integer('version').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).defaultNow(),
});
