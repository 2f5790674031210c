import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { DeliveryRow } from './webhook-deliveries.repository.js';
import type { EndpointRow } from './webhook-endpoints.repository.js';

type LatestDelivery = Pick<DeliveryRow, 'status' | 'last_response_code' | 'created_at'>;

/** An endpoint as pages and the audit log see it: never its secret, only whether it has one. */
export const webhookEndpointJson = (row: EndpointRow, latest?: LatestDelivery) => ({
  _id: row.id,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  signed: row.secret_sealed !== null,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
  lastDelivery: latest
    ? { status: latest.status, responseCode: latest.last_response_code, createdAt: iso(latest.created_at)! }
    : null,
});
export type WebhookEndpoint = ReturnType<typeof webhookEndpointJson>;

export const webhookEndpointJsonSchema = z.object({
  _id: z.string(),
  url: z.string(),
  /** Event names it takes; empty: every event. */
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Whether deliveries to it are signed (it has a secret). */
  signed: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  lastDelivery: z
    .object({
      status: z.enum(['pending', 'delivered', 'failed']),
      responseCode: z.number().int().nullable(),
      createdAt: z.iso.datetime(),
    })
    .nullable(),
});
