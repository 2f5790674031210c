import { parseRow, parseRows, type Queryable, type RowOf, rowSchema } from '@app/db';
import type { NewDelivery, StoredDelivery, WebhookDeliveryStore } from '@app/events';
import { z } from 'zod';
import { webhookDeliveries } from './webhook-deliveries.table.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export type DeliveryRow = Omit<RowOf<typeof webhookDeliveries>, 'claimed_until'>;

const columns =
  'id, url, endpoint_id, event, payload, status, attempts, last_response_code, last_error, next_retry_at, last_attempt_at, created_at, delivered_at';
const deliverySchema = rowSchema(webhookDeliveries).omit({ claimed_until: true });
/** Rows of `columns` (all but the lease), checked against the table; typed as it infers them (`status`). */
const deliveryRows = (rows: unknown[]) => parseRows(deliverySchema, rows) as DeliveryRow[];

/** A claimed delivery, with its endpoint's sealed secret (checked for probes; claimDue, per attempt, asserts it). */
const claimedRow = z.object({
  id: z.string(),
  url: z.string(),
  event: z.string(),
  payload: z.string(),
  attempts: z.number(),
  endpoint_id: z.string().nullable(),
  secret_sealed: z.string().nullable(),
});
type ClaimedRow = z.infer<typeof claimedRow>;
const claimedColumns = `d.id, d.url, d.event, d.payload, d.attempts, d.endpoint_id,
  (SELECT e.secret_sealed FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS secret_sealed`;

/**
 * The delivery queue of the dispatcher (@app/events) on the `webhook_deliveries` table. A claimed
 * delivery of an endpoint carries that endpoint's secret as it is now (`openSecret` unseals it),
 * so a rotated secret signs the next attempt.
 */
export function webhookDeliveryStore(
  db: Queryable,
  openSecret: (sealed: string) => string | undefined = () => undefined,
): WebhookDeliveryStore {
  const toStoredDelivery = ({ endpoint_id, secret_sealed, ...delivery }: ClaimedRow): StoredDelivery => ({
    ...delivery,
    // No endpoint (an automated action's URL, a deleted endpoint): the settings' secret.
    ...(endpoint_id ? { secret: secret_sealed ? (openSecret(secret_sealed) ?? null) : null } : {}),
  });
  return {
    async insert(delivery: NewDelivery) {
      await db.query(
        `INSERT INTO webhook_deliveries (id, url, endpoint_id, event, payload, status, attempts, next_retry_at, created_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)`,
        [delivery.id, delivery.url, delivery.endpointId ?? null, delivery.event, delivery.payload, delivery.createdAt],
      );
    },

    async claimDue(now, limit, leaseUntil) {
      // SKIP LOCKED: instances claiming at the same moment take different rows. The lease keeps a
      // claimed row from being claimed again until its attempt is recorded (or its instance died).
      // row-check: hot path, asserted for speed
      const { rows } = await db.query<ClaimedRow>(
        `UPDATE webhook_deliveries d SET attempts = d.attempts + 1, claimed_until = $3, last_attempt_at = $1
         FROM (
           SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND next_retry_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
           ORDER BY (attempts > 0), next_retry_at
           LIMIT $2 FOR UPDATE SKIP LOCKED
         ) due
         WHERE d.id = due.id
         RETURNING ${claimedColumns}`,
        [now, limit, leaseUntil],
      );
      return rows.map(toStoredDelivery);
    },

    async markDelivered(outcome) {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = $3, last_response_code = $4, last_error = NULL,
           next_retry_at = NULL, claimed_until = NULL, attempts = attempts + CASE WHEN $5::boolean THEN 1 ELSE 0 END
         WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
        [outcome.id, outcome.attempt, outcome.at, outcome.responseCode, outcome.probe === true],
      );
    },

    async markFailed(outcome) {
      await db.query(
        `UPDATE webhook_deliveries SET status = CASE WHEN $5::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
           next_retry_at = $5, last_response_code = $3, last_error = $4, claimed_until = NULL
         WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
        [outcome.id, outcome.attempt, outcome.responseCode, outcome.error, outcome.nextRetryAt],
      );
    },

    async markProbeFailed(outcome) {
      await db.query(
        `UPDATE webhook_deliveries SET last_response_code = $3, last_error = $4, claimed_until = NULL
         WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
        [outcome.id, outcome.attempt, outcome.responseCode, outcome.error],
      );
    },

    async releaseEndpoint(url, now) {
      const { rowCount } = await db.query(
        `UPDATE webhook_deliveries SET next_retry_at = $2 WHERE url = $1 AND status = 'pending' AND next_retry_at > $2`,
        [url, now],
      );
      return rowCount ?? 0;
    },

    async claimProbes(now, quietMs, leaseUntil) {
      // Only the claimed row changes (its lease and when it was tried): its attempts and
      // next_retry_at stay, so the schedule is the same as if no probe had been made.
      const { rows } = await db.query(
        `UPDATE webhook_deliveries d SET claimed_until = $3, last_attempt_at = $1
         FROM (
           SELECT DISTINCT ON (url) id, url FROM webhook_deliveries
           WHERE status = 'pending'
           ORDER BY url, next_retry_at
         ) earliest
         WHERE d.id = earliest.id
           AND (d.claimed_until IS NULL OR d.claimed_until <= $1::timestamptz)
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries busy
             WHERE busy.url = earliest.url AND busy.status = 'pending'
               AND (busy.next_retry_at <= $1::timestamptz + $2::float8 * interval '1 millisecond'
                    OR busy.last_attempt_at > $1::timestamptz - $2::float8 * interval '1 millisecond'
                    OR busy.claimed_until > $1::timestamptz))
         RETURNING ${claimedColumns}`,
        [now, quietMs, leaseUntil],
      );
      return parseRows(claimedRow, rows).map((row) => ({ ...toStoredDelivery(row), probe: true }));
    },
  };
}

/** Pending deliveries of an endpoint about to be deleted are kept as failed (never sent to a URL nobody manages). */
export async function failPendingOfEndpoint(db: Queryable, endpointId: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries SET status = 'failed', next_retry_at = NULL, claimed_until = NULL, last_error = 'Endpoint deleted'
     WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId],
  );
  return rowCount ?? 0;
}

/** A row of latestDeliveryByEndpoint (endpoint_id is never null there: it is one of those asked for). */
const latestDeliveryRow = z.object({
  endpoint_id: z.string(),
  status: z.enum(webhookDeliveries.status.enumValues),
  last_response_code: z.number().nullable(),
  created_at: z.date(),
});

/** Each endpoint's latest delivery: its status and response code. */
export async function latestDeliveryByEndpoint(db: Queryable, endpointIds: string[]) {
  if (endpointIds.length === 0)
    return new Map<string, Pick<DeliveryRow, 'status' | 'last_response_code' | 'created_at'>>();
  const { rows } = await db.query(
    `SELECT DISTINCT ON (endpoint_id) endpoint_id, status, last_response_code, created_at FROM webhook_deliveries
     WHERE endpoint_id = ANY($1::uuid[]) ORDER BY endpoint_id, created_at DESC`,
    [endpointIds],
  );
  return new Map(parseRows(latestDeliveryRow, rows).map(({ endpoint_id, ...rest }) => [endpoint_id, rest]));
}

export async function listDeliveries(db: Queryable, filter: { status?: DeliveryStatus; limit: number; skip: number }) {
  const where = filter.status ? 'WHERE status = $1' : '';
  const values = filter.status ? [filter.status] : [];
  const [page, count] = await Promise.all([
    db.query(
      `SELECT ${columns} FROM webhook_deliveries ${where} ORDER BY created_at DESC, id DESC
       LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, filter.limit, filter.skip],
    ),
    db.query(`SELECT count(*)::int AS total FROM webhook_deliveries ${where}`, values),
  ]);
  return { rows: deliveryRows(page.rows), total: parseRow(z.object({ total: z.number() }), count.rows).total };
}

export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query(`SELECT ${columns} FROM webhook_deliveries WHERE id = $1`, [id]);
  return deliveryRows(rows)[0];
}

/** A delivered or failed delivery becomes pending again, due now, with a fresh retry schedule. */
export async function requeueDelivery(db: Queryable, id: string, now: Date): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_retry_at = $2, delivered_at = NULL, claimed_until = NULL
     WHERE id = $1 AND status <> 'pending' RETURNING ${columns}`,
    [id, now],
  );
  return deliveryRows(rows)[0];
}
