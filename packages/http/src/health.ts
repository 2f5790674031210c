import type { RequestHandler } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { defineRoute, mountRoutes, publicAccess, type AnyRoute } from './routes.js';

const status = (value: string) => z.object({ status: z.literal(value) });

/**
 * `/healthz`: the process answers. `/readyz`: the database answers too. As declarations, so a
 * service lists them in its API description; mount them before the rate limiters.
 */
export function healthRouteDeclarations(pool: Pick<pg.Pool, 'query'>): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the process answers',
      tags: ['health'],
      guard: publicAccess,
      responses: { 200: { description: 'Alive', schema: status('ok') } },
      handler: () => ({ status: 'ok' }),
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: the database answers too',
      tags: ['health'],
      guard: publicAccess,
      responses: {
        200: { description: 'Ready', schema: status('ready') },
        503: {
          description: 'The database is unreachable, or the instance is shutting down',
          schema: z.object({ status: z.literal('unavailable'), error: z.string() }),
        },
      },
      handler: async ({ req, res }) => {
        // Shutting down (serve.ts): out of the balancer first, while requests in flight finish.
        if (req.app.locals.draining === true) {
          res.status(503).json({ status: 'unavailable', error: 'Shutting down' });
          return undefined;
        }
        try {
          await pool.query('SELECT 1');
          return { status: 'ready' };
        } catch {
          res.status(503).json({ status: 'unavailable', error: 'Database unreachable' });
          return undefined;
        }
      },
    }),
  ];
}

/** The health routes as one middleware, for services that mount them alone. */
export function healthRoutes(pool: Pick<pg.Pool, 'query'>): RequestHandler {
  return mountRoutes(healthRouteDeclarations(pool));
}
