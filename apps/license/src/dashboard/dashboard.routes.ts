import path from 'node:path';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { isHttpError } from '@app/http';
import type { AppContext } from '../app.js';
import { dashboardService } from './dashboard.service.js';
import { adminPage, anonymousPage, assetsPath, customerPage, noAccessPage, notFoundPage, twoFactorPage } from './dashboard.view.js';

const assetsDir = path.join(import.meta.dirname, 'assets');

/**
 * Runs a guard and reports how it ended instead of ending the request: `undefined` when it let
 * the request through, else its error. The page reuses requireAdmin as is, two-factor gate included.
 */
function guardResult(guard: RequestHandler, req: Request, res: Response): Promise<unknown> {
  return new Promise((resolve) => {
    Promise.resolve(guard(req, res, (error?: unknown) => resolve(error))).catch(resolve);
  });
}

/** The two-factor step the gate asks for, when the error is the gate's. */
function twoFactorStep(error: unknown): 'verify' | 'setup' | undefined {
  if (!isHttpError(error) || error.status !== 403) return undefined;
  const step = error.extra?.twoFactor;
  return step === 'verify' || step === 'setup' ? step : undefined;
}

/**
 * The web dashboard at `/`: sign-in for visitors, the admin overview, a customer's licenses.
 * Mounted after the session middleware and without the panic guard: it stays reachable in panic mode.
 */
export function dashboardRoutes(context: AppContext): Router {
  const service = dashboardService({
    pool: context.pool, settings: context.settings, now: context.now, licenses: context.services.licenses,
  });
  const router = Router();

  router.use(assetsPath, express.static(assetsDir, { index: false, maxAge: '1h', fallthrough: false }));
  // Browsers ask for it on every site; the pages link the SVG icon instead.
  router.get('/favicon.ico', (_req, res) => { res.status(204).end(); });

  router.get('/', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.type('html');
    const user = req.user;
    if (!user) return void res.send(anonymousPage(req.query.error));

    const visitor = await service.visitor(user.id);
    if (visitor.kind === 'admin') {
      const error = await guardResult(context.requireAdmin, req, res);
      if (error) {
        const step = twoFactorStep(error);
        if (!step) throw error;
        return void res.send(twoFactorPage(user.username, step));
      }
      return void res.send(adminPage({ username: user.username, ...(await service.adminOverview()) }));
    }
    if (visitor.kind === 'customer') {
      const panicMode = service.panicMode();
      // Panic mode closes the customer API; the page says so instead of reading licenses.
      const licenses = panicMode ? [] : await service.customerLicenses(visitor.customer.id);
      return void res.send(customerPage({ username: user.username, customerName: visitor.customer.name, licenses, panicMode }));
    }
    res.send(noAccessPage(user.username));
  });
  return router;
}

/**
 * 404 with an HTML page for every unknown path outside `/api` (any method; HEAD gets the headers
 * only), instead of Express's "Cannot GET". Mount after every router and after `apiNotFound`.
 */
export const pageNotFound: RequestHandler = (req, res) => {
  res.status(404).set('Cache-Control', 'no-store').type('html').send(notFoundPage(req.user?.username));
};
