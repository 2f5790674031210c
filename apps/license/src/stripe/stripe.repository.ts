import type { Queryable } from '@app/db';
import type { TransactionStatus } from '../transactions/transactions.table.js';
import type { LicenseType } from '../licenses/licenses.table.js';

/** Claims a Stripe event id; false when it was processed before. Call inside the transaction doing the work. */
export async function claimStripeEvent(db: Queryable, id: string, type: string): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING', [id, type]);
  return (rowCount ?? 0) > 0;
}

export interface LicenseRow {
  id: string; key: string; product_id: string; customer_id: string | null; license_type: LicenseType; expires_at: Date | null;
}
const licenseColumns = 'id, key, product_id, customer_id, license_type, expires_at';

export async function findProductPrefix(db: Queryable, productId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ license_prefix: string }>('SELECT license_prefix FROM products WHERE id = $1', [productId]);
  return rows[0]?.license_prefix;
}

export async function customerExists(db: Queryable, customerId: string): Promise<boolean> {
  return ((await db.query('SELECT 1 FROM customers WHERE id = $1', [customerId])).rowCount ?? 0) > 0;
}

/**
 * Extends a license by `days` from its expiry, or from now when it has expired (or has none),
 * adds credits, and clears the expiry notice so a later expiry is announced again.
 */
export async function extendLicense(db: Queryable, key: string, days: number, credits: number, now: Date): Promise<LicenseRow | undefined> {
  const { rows } = await db.query<LicenseRow>(
    `UPDATE licenses SET
       expires_at = GREATEST(COALESCE(expires_at, $4), $4) + make_interval(days => $2::int),
       credits_total = credits_total + $3, expired_notified_at = NULL, updated_at = $4
     WHERE key = $1 RETURNING ${licenseColumns}`, [key, days, credits, now]);
  return rows[0];
}

export async function insertLicense(db: Queryable, input: {
  key: string; productId: string; customerId?: string; licenseType: LicenseType; expiresAt: Date;
  ipLimit: number; hwidLimit: number; credits: number; metadata: Record<string, unknown>; now: Date;
}): Promise<LicenseRow> {
  const { rows } = await db.query<LicenseRow>(
    `INSERT INTO licenses (key, product_id, customer_id, license_type, expires_at, ip_limit, hwid_limit, credits_total, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${licenseColumns}`,
    [input.key, input.productId, input.customerId ?? null, input.licenseType, input.expiresAt, input.ipLimit, input.hwidLimit,
      input.credits, JSON.stringify(input.metadata), input.now]);
  return rows[0]!;
}

/** Records (or moves on) the transaction of a checkout session; the session id keeps it one row. */
export async function upsertTransaction(db: Queryable, input: {
  externalId: string; status: TransactionStatus; amount: number; currency: string;
  customerId?: string | null; licenseId?: string | null; productId?: string | null; metadata: Record<string, unknown>; now: Date;
}): Promise<{ id: string; status: TransactionStatus }> {
  const { rows } = await db.query<{ id: string; status: TransactionStatus }>(
    `INSERT INTO transactions (external_id, status, amount, currency, customer_id, license_id, product_id, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (external_id) DO UPDATE SET
       status = EXCLUDED.status, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
       customer_id = COALESCE(EXCLUDED.customer_id, transactions.customer_id),
       license_id = COALESCE(EXCLUDED.license_id, transactions.license_id),
       product_id = COALESCE(EXCLUDED.product_id, transactions.product_id),
       metadata = transactions.metadata || EXCLUDED.metadata, updated_at = EXCLUDED.updated_at
     RETURNING id, status`,
    [input.externalId, input.status, input.amount, input.currency, input.customerId ?? null, input.licenseId ?? null,
      input.productId ?? null, JSON.stringify(input.metadata), input.now]);
  return rows[0]!;
}

export async function setTransactionStatus(db: Queryable, externalId: string, status: TransactionStatus, now: Date): Promise<void> {
  await db.query('UPDATE transactions SET status = $2, updated_at = $3 WHERE external_id = $1', [externalId, status, now]);
}

/** A refunded charge: its checkout's transaction is found by the payment intent recorded with it. */
export async function refundByPaymentIntent(db: Queryable, paymentIntent: string, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE transactions SET status = 'refunded', updated_at = $2 WHERE metadata->>'paymentIntent' = $1`, [paymentIntent, now]);
  return rowCount ?? 0;
}
