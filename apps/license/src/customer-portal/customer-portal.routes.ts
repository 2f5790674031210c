import { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import { z } from 'zod';
import { HttpError, validate } from '@app/http';
import { isoDate } from '../common/schemas.js';
import { findCustomerByUserId } from '../customers/customers.repository.js';
import type { customerPortalService } from './customer-portal.service.js';

const usageQuery = z.object({ startDate: isoDate().optional(), endDate: isoDate().optional() });

/** A signed-in user who is registered as a customer; 401 without a session, 403 when not a customer. */
export function requireCustomer(pool: pg.Pool): RequestHandler {
  return async (req, _res, next) => {
    if (!req.user) throw HttpError.unauthorized();
    const customer = await findCustomerByUserId(pool, req.user.id);
    if (!customer) throw HttpError.forbidden('No customer account for this user');
    req.customer = customer;
    next();
  };
}

export function customerPortalRoutes(deps: {
  service: ReturnType<typeof customerPortalService>; pool: pg.Pool; panicGuard: RequestHandler;
}): Router {
  const { service } = deps;
  const router = Router();
  router.use('/api/customer', deps.panicGuard, requireCustomer(deps.pool));
  const me = (req: { customer?: { id: string } }) => req.customer!.id;
  const licenseId = (params: Record<string, string | string[]>) => String(params.licenseId);

  // Before `/:licenseId`, which would otherwise take "stats" as an id.
  router.get('/api/customer/licenses/stats', async (req, res) => {
    res.json({ success: true, stats: await service.stats(me(req)) });
  });
  router.get('/api/customer/licenses/:licenseId', async (req, res) => {
    res.json({ success: true, licenses: await service.list(me(req), licenseId(req.params)) });
  });
  router.get('/api/customer/licenses/:licenseId/detail', async (req, res) => {
    res.json({ success: true, license: await service.detail(me(req), licenseId(req.params)) });
  });
  router.get('/api/customer/licenses/:licenseId/usage', validate({ query: usageQuery }), async (req, res) => {
    const range = req.valid.query as { startDate?: Date; endDate?: Date };
    res.json({ success: true, usage: await service.usage(me(req), licenseId(req.params), range) });
  });
  router.get('/api/customer/licenses/:licenseId/credits', async (req, res) => {
    res.json({ success: true, credits: await service.credits(me(req), licenseId(req.params)) });
  });
  return router;
}
