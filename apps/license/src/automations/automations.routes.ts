import { Router, type RequestHandler } from 'express';
import { validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import type { automationsService } from './automations.service.js';
import { createActionSchema, executeSchema, updateActionSchema, type CreateAction, type UpdateAction } from './automations.schema.js';

export function automationRoutes(deps: { service: ReturnType<typeof automationsService>; requireAdmin: RequestHandler }): Router {
  const { service, requireAdmin } = deps;
  const router = Router();
  router.use('/api/automated-actions', requireAdmin);

  router.get('/api/automated-actions', async (_req, res) => {
    res.json({ success: true, actions: await service.list() });
  });
  router.get('/api/automated-actions/:id', async (req, res) => {
    res.json({ success: true, action: await service.get(String(req.params.id)) });
  });
  router.post('/api/automated-actions', validate({ body: createActionSchema }), async (req, res) => {
    res.status(201).json({ success: true, action: await service.create(actorOf(req), req.valid.body as CreateAction) });
  });
  router.put('/api/automated-actions/:id', validate({ body: updateActionSchema }), async (req, res) => {
    res.json({ success: true, action: await service.update(actorOf(req), String(req.params.id), req.valid.body as UpdateAction) });
  });
  router.delete('/api/automated-actions/:id', async (req, res) => {
    await service.remove(actorOf(req), String(req.params.id));
    res.json({ success: true });
  });
  router.post('/api/automated-actions/:id/execute', validate({ body: executeSchema }), async (req, res) => {
    const { context } = req.valid.body as { context: Record<string, unknown> };
    res.json({ success: true, result: await service.execute(actorOf(req), String(req.params.id), context) });
  });
  return router;
}
