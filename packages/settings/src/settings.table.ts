import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The settings table under the name a service gives it (`paste_settings`, `license_settings`):
 * each service declares its own with this, creates it in its migrations and passes the name to
 * `createSettingsStore`, so two services that share one database (a lone DATABASE_URL) never
 * share a table.
 *
 * One row per settings namespace (e.g. 'paste'). `value` holds the keys set so far; the
 * schema's defaults fill the rest when read. `version` grows with every write, so other
 * instances learn of a change by reading one integer.
 */
export function createSettingsTable<Name extends string>(name: Name) {
  return pgTable(name, {
    namespace: text('namespace').primaryKey(),
    value: jsonb('value').notNull(),
    version: integer('version').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).defaultNow(),
  });
}
