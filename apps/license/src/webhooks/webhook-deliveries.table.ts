import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { webhookEndpoints } from './webhook-endpoints.table.js';

/**
 * Every webhook delivery, from queued to delivered or failed for good: it is the delivery queue
 * itself (a pending row whose next_retry_at has come is due), and the record an admin lists and
 * redelivers. `payload` is the exact body sent on every attempt. `claimed_until` is the lease of
 * the instance making the current attempt (another instance takes over once it passes).
 * `endpoint_id` names the endpoint it was sent for (null: an automated action's own URL, or an
 * endpoint deleted since).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    url: text('url').notNull(),
    endpointId: uuid('endpoint_id').references(() => webhookEndpoints.id, { onDelete: 'set null' }),
    event: text('event').notNull(),
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastResponseCode: integer('last_response_code'),
    lastError: text('last_error'),
    nextRetryAt: timestamp('next_retry_at', { withTimezone: true }),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (table) => [
    check('webhook_deliveries_status_check', sql`${table.status} IN ('pending', 'delivered', 'failed')`),
    // The claim: first deliveries (attempts = 0) before retries, each in due order.
    index('webhook_deliveries_due_idx')
      .on(sql`(${table.attempts} > 0)`, table.nextRetryAt)
      .where(sql`${table.status} = 'pending'`),
    // Releasing an endpoint's waiting retries.
    index('webhook_deliveries_pending_url_idx')
      .on(table.url, table.nextRetryAt)
      .where(sql`${table.status} = 'pending'`),
    // An endpoint's latest delivery (the endpoints list), and SET NULL when it is deleted.
    index('webhook_deliveries_endpoint_created_idx').on(table.endpointId, table.createdAt.desc()),
    // The admin list, newest first, by status.
    index('webhook_deliveries_status_created_idx').on(table.status, table.createdAt.desc(), table.id.desc()),
  ],
);
