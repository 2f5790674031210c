import express, { Router, type RequestHandler } from 'express';
import { HttpError } from '@app/http';
import type { stripeService } from './stripe.service.js';

/**
 * Stripe signs the exact bytes it sent, so this path needs the raw body: app.ts mounts this
 * parser for /api/stripe before the JSON parser (which then leaves the request alone).
 */
export const stripeRawBody: RequestHandler = express.raw({ type: '*/*', limit: '1mb' });

export function stripeRoutes(deps: { service: ReturnType<typeof stripeService>; panicGuard: RequestHandler }): Router {
  const router = Router();
  router.post('/api/stripe', deps.panicGuard, stripeRawBody, async (req, res) => {
    if (!Buffer.isBuffer(req.body)) throw HttpError.badRequest('Expected the raw request body');
    res.json({ success: true, ...(await deps.service.receive(req.body, req.get('stripe-signature'), req.ip)) });
  });
  return router;
}
