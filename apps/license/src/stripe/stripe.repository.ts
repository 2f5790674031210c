import type { Queryable } from '@app/db';

/** Claims a Stripe event id; false when it was processed before. Call inside the transaction doing the work. */
export async function claimStripeEvent(db: Queryable, id: string, type: string): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    id,
    type,
  ]);
  return (rowCount ?? 0) > 0;
}
