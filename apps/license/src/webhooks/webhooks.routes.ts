import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, conflict, notFound, one, page, validationFailure } from '../common/responses.js';
import { webhookDeliveryJsonSchema } from './webhooks.presenter.js';
import { idParams } from '../common/schemas.js';
import { deliveriesQuerySchema } from './webhooks.schema.js';
import type { createWebhooksService } from './webhooks.service.js';

const tags = ['webhooks'];

/** `GET /api/webhooks/deliveries` (status, limit, skip) and `POST /api/webhooks/deliveries/:id/redeliver`, admin only. */
export function webhookRoutes(deps: { service: ReturnType<typeof createWebhooksService>; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/webhooks/deliveries',
      summary: 'List webhook deliveries',
      tags,
      guard: admin,
      query: deliveriesQuerySchema,
      responses: {
        200: {
          description: 'A page of deliveries, newest first, and the total',
          schema: page('deliveries', webhookDeliveryJsonSchema, true),
        },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const { deliveries, total } = await service.list(query);
        return { success: true, deliveries, count: deliveries.length, total };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/webhooks/deliveries/:id/redeliver',
      summary: 'Send a delivery again',
      tags,
      guard: admin,
      params: idParams,
      responses: {
        200: { description: 'The delivery, pending again', schema: one('delivery', webhookDeliveryJsonSchema) },
        ...adminFailures,
        ...notFound('Delivery'),
        ...conflict('The delivery is already pending'),
      },
      handler: async ({ params, req }) => ({
        success: true,
        delivery: await service.redeliver(actorOf(req), params.id),
      }),
    }),
  ];
}
