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
  lastDelivery: latest ? { status: latest.status, responseCode: latest.last_response_code, createdAt: iso(latest.created_at)! } : null,
});
export type WebhookEndpoint = ReturnType<typeof webhookEndpointJson>;
