import { Router } from 'express';
import type pg from 'pg';

/** `/healthz`: the process answers. `/readyz`: the database answers too. Mount before limiters. */
export function healthRoutes(pool: Pick<pg.Pool, 'query'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  router.get('/readyz', async (_req, res) => {
    try {
      await pool.query('SELECT 1');
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable', error: 'Database unreachable' });
    }
  });
  return router;
}
