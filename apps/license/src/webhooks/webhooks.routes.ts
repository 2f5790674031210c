import { Router, type RequestHandler } from 'express';
import { validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import { deliveriesQuerySchema, type DeliveriesQuery } from './webhooks.schema.js';
import type { webhooksService } from './webhooks.service.js';

/** `GET /api/webhooks/deliveries` (status, limit, skip) and `POST /api/webhooks/deliveries/:id/redeliver`, admin only. */
export function webhookRoutes(deps: { service: ReturnType<typeof webhooksService>; requireAdmin: RequestHandler }): Router {
  const { service } = deps;
  const router = Router();
  router.use('/api/webhooks', deps.requireAdmin);
  router.get('/api/webhooks/deliveries', validate({ query: deliveriesQuerySchema }), async (req, res) => {
    const { deliveries, total } = await service.list(req.valid.query as DeliveriesQuery);
    res.json({ success: true, deliveries, count: deliveries.length, total });
  });
  router.post('/api/webhooks/deliveries/:id/redeliver', async (req, res) => {
    res.json({ success: true, delivery: await service.redeliver(actorOf(req), String(req.params.id)) });
  });
  return router;
}
