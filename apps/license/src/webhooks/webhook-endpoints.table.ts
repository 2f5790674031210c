import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Where license events are sent: each enabled endpoint gets the events it lists (none listed:
 * every event), signed with its own secret. The secret is needed to sign, so it is kept
 * recoverably, sealed (AES-256-GCM under a key derived from SESSION_SECRET); null means
 * deliveries to it are not signed (an endpoint seeded from WEBHOOK_URL without WEBHOOK_SECRET).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    url: text('url').notNull(),
    events: text('events')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    secretSealed: text('secret_sealed'),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('webhook_endpoints_created_idx').on(table.createdAt, table.id)],
);
