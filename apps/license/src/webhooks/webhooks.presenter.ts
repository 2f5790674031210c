import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { DeliveryRow } from './webhook-deliveries.repository.js';

/** A webhook delivery as the admin API lists it; `payload` is the body sent, parsed back to JSON. */
export const webhookDeliveryJsonSchema = z.object({
  _id: z.string(),
  url: z.string(),
  /** The endpoint it was sent for (null: an automated action's own URL, or a deleted endpoint). */
  endpointId: z.string().nullable(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  lastResponseCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextRetryAt: z.iso.datetime().nullable(),
  lastAttemptAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  deliveredAt: z.iso.datetime().nullable(),
  payload: z.unknown(),
});

const parsed = (payload: string): unknown => {
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
};

export const webhookDeliveryJson = (row: DeliveryRow) => ({
  _id: row.id,
  url: row.url,
  endpointId: row.endpoint_id,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  lastResponseCode: row.last_response_code,
  lastError: row.last_error,
  nextRetryAt: iso(row.next_retry_at),
  lastAttemptAt: iso(row.last_attempt_at),
  createdAt: iso(row.created_at)!,
  deliveredAt: iso(row.delivered_at),
  payload: parsed(row.payload),
});
export type WebhookDelivery = ReturnType<typeof webhookDeliveryJson>;
