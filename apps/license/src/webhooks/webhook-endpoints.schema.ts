import { z } from 'zod';
import { licenseEventNames } from '../events/event-bus.js';

/** The events an endpoint can take; `webhook.test` is only ever sent by "Send test". */
export const endpointEventNames = licenseEventNames;

/** A new endpoint: where to send and which events (none: every event). */
export const createEndpointSchema = z.object({
  url: z.url({ protocol: /^https?$/, error: 'Enter an http:// or https:// address' }).max(2000),
  events: z.array(z.enum(endpointEventNames)).max(endpointEventNames.length).default([]),
});
export type CreateEndpoint = z.infer<typeof createEndpointSchema>;

/** The event of the test delivery "Send test" queues to one endpoint. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** `PUT /api/webhooks/endpoints/:id`: enable or disable it. */
export const updateEndpointSchema = z.object({ enabled: z.boolean() });
