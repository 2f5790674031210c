import express, { type RequestHandler } from 'express';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { z } from 'zod';
import { errorSchema } from '../common/responses.js';
import type { createStripeService } from './stripe.service.js';

/**
 * Stripe signs the exact bytes it sent, so this path needs the raw body: app.ts mounts this
 * route before the JSON parser (which then leaves the request alone).
 */
export const stripeRawBody: RequestHandler = express.raw({ type: '*/*', limit: '1mb' });

export function stripeRoutes(deps: {
  service: ReturnType<typeof createStripeService>;
  public: Guard;
  panicGuard: RequestHandler;
}): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/stripe',
      summary: 'Stripe event receiver (signed with STRIPE_WEBHOOK_SECRET)',
      tags: ['stripe'],
      guard: deps.public,
      before: [deps.panicGuard, stripeRawBody],
      description: 'The raw body as Stripe sent it, checked against the `Stripe-Signature` header.',
      responses: {
        200: {
          description: 'The event was handled (or was a duplicate)',
          schema: z.object({
            success: z.literal(true),
            received: z.literal(true),
            duplicate: z.boolean(),
            transaction: z.object({ _id: z.string(), status: z.string() }).optional(),
            licenseKey: z.string().optional(),
          }),
        },
        400: { description: 'Bad signature or payload', schema: errorSchema },
        503: { description: 'Panic mode is on, or no secret is configured', schema: errorSchema },
      },
      handler: async ({ req }) => {
        if (!Buffer.isBuffer(req.body)) throw appError('STRIPE_RAW_BODY_EXPECTED');
        return { success: true, ...(await deps.service.receive(req.body, req.get('stripe-signature'), req.ip)) };
      },
    }),
  ];
}
