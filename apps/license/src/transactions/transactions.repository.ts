import { parseRow, parseRows, type Queryable } from '@app/db';
import { type TransactionStatus, transactionStatuses } from './transactions.table.js';
import { z } from 'zod';

// The payments of the marketplaces (Stripe today). Call these with the transaction's client of
// the event being processed, so the payment, its license and the event claim commit together.

/** Records (or moves on) the transaction of a checkout session; the session id keeps it one row. */
export async function upsertTransaction(
  db: Queryable,
  input: {
    externalId: string;
    status: TransactionStatus;
    amount: number;
    currency: string;
    customerId?: string | null;
    licenseId?: string | null;
    productId?: string | null;
    metadata: Record<string, unknown>;
    now: Date;
  },
): Promise<{ id: string; status: TransactionStatus }> {
  const { rows } = await db.query(
    `INSERT INTO transactions (external_id, status, amount, currency, customer_id, license_id, product_id, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (external_id) DO UPDATE SET
       status = EXCLUDED.status, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
       customer_id = COALESCE(EXCLUDED.customer_id, transactions.customer_id),
       license_id = COALESCE(EXCLUDED.license_id, transactions.license_id),
       product_id = COALESCE(EXCLUDED.product_id, transactions.product_id),
       metadata = transactions.metadata || EXCLUDED.metadata, updated_at = EXCLUDED.updated_at
     RETURNING id, status`,
    [
      input.externalId,
      input.status,
      input.amount,
      input.currency,
      input.customerId ?? null,
      input.licenseId ?? null,
      input.productId ?? null,
      JSON.stringify(input.metadata),
      input.now,
    ],
  );
  return parseRow(z.object({ id: z.string(), status: z.enum(transactionStatuses) }), rows);
}

export async function setTransactionStatus(
  db: Queryable,
  externalId: string,
  status: TransactionStatus,
  now: Date,
): Promise<void> {
  await db.query('UPDATE transactions SET status = $2, updated_at = $3 WHERE external_id = $1', [
    externalId,
    status,
    now,
  ]);
}

/** A refunded charge: its checkout's transaction is found by the payment intent recorded with it. */
export async function refundByPaymentIntent(db: Queryable, paymentIntent: string, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE transactions SET status = 'refunded', updated_at = $2 WHERE metadata->>'paymentIntent' = $1`,
    [paymentIntent, now],
  );
  return rowCount ?? 0;
}

/** Transactions per status, with their summed amounts (the summary report's figures). */
const totalsRow = z.object({ status: z.string(), count: z.number(), amount: z.number() });

export async function transactionTotalsByStatus(db: Queryable) {
  const { rows } = await db.query(
    'SELECT status, count(*) AS count, coalesce(sum(amount), 0) AS amount FROM transactions GROUP BY 1',
  );
  return parseRows(totalsRow, rows);
}
