import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, errorSchema, notFound, one, successSchema, validationFailure } from '../common/responses.js';
import { idParams } from '../common/schemas.js';
import { webhookEndpointJsonSchema } from './webhook-endpoints.presenter.js';
import { createEndpointSchema, updateEndpointSchema } from './webhook-endpoints.schema.js';
import type { WebhookEndpointsService } from './webhook-endpoints.service.js';

const tags = ['webhooks'];
const withSecret = z.object({
  success: z.literal(true),
  endpoint: webhookEndpointJsonSchema,
  /** The signing secret: told here once, never again. */
  secret: z.string(),
});
const urlNotAllowed = {
  400: {
    description: 'Validation failed, or `Webhook URL not allowed` (loopback, private, link-local...)',
    schema: errorSchema,
  },
};

/** The webhook endpoints as JSON, admin only: the same service (rules, audit) as the `/webhooks` pages. */
export function webhookEndpointRoutes(deps: { endpoints: WebhookEndpointsService; admin: Guard }): AnyRoute[] {
  const { endpoints, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/webhooks/endpoints',
      summary: 'List webhook endpoints',
      tags,
      guard: admin,
      responses: {
        200: {
          description: 'Every endpoint, oldest first, with its latest delivery',
          schema: z.object({
            success: z.literal(true),
            endpoints: z.array(webhookEndpointJsonSchema),
            count: z.number().int(),
          }),
        },
        ...adminFailures,
      },
      handler: async () => {
        const list = await endpoints.list();
        return { success: true, endpoints: list, count: list.length };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/webhooks/endpoints',
      summary: 'Add a webhook endpoint',
      tags,
      guard: admin,
      body: createEndpointSchema,
      status: 201,
      description:
        '`events` empty or left out: every event. The answer carries the signing secret, the only time it is told.',
      audit: { action: 'create', resource: 'notification' },
      responses: {
        201: { description: 'The endpoint and its secret', schema: withSecret },
        ...urlNotAllowed,
        ...adminFailures,
      },
      handler: async ({ body, req }) => ({ success: true, ...(await endpoints.create(actorOf(req), body)) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/webhooks/endpoints/:id',
      summary: 'Enable or disable a webhook endpoint',
      tags,
      guard: admin,
      params: idParams,
      body: updateEndpointSchema,
      audit: { action: 'update', resource: 'notification' },
      responses: {
        200: { description: 'The endpoint', schema: one('endpoint', webhookEndpointJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Webhook endpoint'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        endpoint: await endpoints.setEnabled(actorOf(req), params.id, body.enabled),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/webhooks/endpoints/:id',
      summary: 'Delete a webhook endpoint',
      tags,
      guard: admin,
      params: idParams,
      description: 'Its pending deliveries are kept as failed; the log keeps its deliveries without an endpoint.',
      audit: { action: 'delete', resource: 'notification' },
      responses: {
        200: { description: 'Deleted', schema: successSchema },
        ...adminFailures,
        ...notFound('Webhook endpoint'),
      },
      handler: async ({ params, req }) => {
        await endpoints.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/webhooks/endpoints/:id/rotate',
      summary: 'Make a new signing secret for a webhook endpoint',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'update', resource: 'notification' },
      responses: {
        200: { description: 'The endpoint and its new secret, told once', schema: withSecret },
        ...adminFailures,
        ...notFound('Webhook endpoint'),
      },
      handler: async ({ params, req }) => ({ success: true, ...(await endpoints.rotate(actorOf(req), params.id)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/webhooks/endpoints/:id/test',
      summary: 'Queue a test delivery (event webhook.test) to a webhook endpoint',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'create', resource: 'notification' },
      responses: {
        200: {
          description: 'The id of the queued delivery',
          schema: z.object({ success: z.literal(true), deliveryId: z.string() }),
        },
        ...adminFailures,
        ...notFound('Webhook endpoint'),
      },
      handler: async ({ params, req }) => ({
        success: true,
        deliveryId: await endpoints.sendTest(actorOf(req), params.id),
      }),
    }),
  ];
}
