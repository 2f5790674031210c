import { sql } from 'drizzle-orm';
import { check, index, jsonb, numeric, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { customers } from '../customers/customers.table.js';
import { licenses } from '../licenses/licenses.table.js';
import { products } from '../products/products.table.js';

export const transactionStatuses = ['pending', 'processing', 'completed', 'failed', 'refunded', 'cancelled'] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

export const transactions = pgTable(
  'transactions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    customerId: uuid('customer_id').references(() => customers.id, { onDelete: 'set null' }),
    licenseId: uuid('license_id').references(() => licenses.id, { onDelete: 'set null' }),
    productId: uuid('product_id').references(() => products.id, { onDelete: 'set null' }),
    /** In the currency's main unit (e.g. 19.99); NUMERIC reads back as a number. */
    amount: numeric('amount', { precision: 14, scale: 2, mode: 'number' }).notNull().default(0),
    currency: text('currency').notNull().default('usd'),
    status: text('status').$type<TransactionStatus>().notNull().default('pending'),
    /** The marketplace's id (e.g. a Stripe checkout session), unique so a payment is recorded once. */
    externalId: text('external_id'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp('updated_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    uniqueIndex('transactions_external_id_idx').on(table.externalId),
    index('transactions_customer_idx').on(table.customerId),
    index('transactions_created_idx').on(table.createdAt),
    check(
      'transactions_status_check',
      sql`${table.status} in ('pending', 'processing', 'completed', 'failed', 'refunded', 'cancelled')`,
    ),
  ],
);
