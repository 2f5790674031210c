import { Router } from 'express';
import type { Access } from '../shared/access.js';
import type { StatsService } from './stats.service.js';

export function statsRoutes(deps: { service: StatsService; access: Access }): Router {
  const router = Router();
  router.get('/api/stats', ...deps.access.owner, async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await deps.service.get());
  });
  return router;
}
