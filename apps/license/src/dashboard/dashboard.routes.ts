import path from 'node:path';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { defineRoute, isHttpError, type AnyRoute, type Guard } from '@app/http';
import { UI_STATIC_PATH, uiStatic } from '@app/ui';
import { adminData, assetsPath, noAccessData, notFoundData, signInData, twoFactorData } from './dashboard.page-data.js';
import type { CustomerRecord } from '../common/request.js';
import type { DashboardService } from './dashboard.service.js';

const assetsDir = path.join(import.meta.dirname, 'assets');

/**
 * Runs a guard and reports how it ended instead of ending the request: `undefined` when it let
 * the request through, else its error. The page reuses the admin guard as is, two-factor gate included.
 */
export async function guardResult(guard: Guard, req: Request, res: Response): Promise<Error | undefined> {
  for (const middleware of guard.middleware) {
    const error = await new Promise<unknown>((resolve) => {
      Promise.resolve(middleware(req, res, (failure?: unknown) => resolve(failure))).catch(resolve);
    });
    if (error) return error instanceof Error ? error : new Error('The guard failed', { cause: error });
  }
  return undefined;
}

/** The two-factor step the gate asks for, when the error is the gate's. */
export function twoFactorStep(error: unknown): 'verify' | 'setup' | undefined {
  if (!isHttpError(error)) return undefined;
  const step = error.extra?.twoFactor;
  return step === 'verify' || step === 'setup' ? step : undefined;
}

/** `?error=` carries the sign-in failure's code back to the page; anything else is ignored. */
const pageQuery = z.object({ error: z.string().optional().catch(undefined) });

/** The UI kit's stylesheet and script, and the page's own stylesheet, script and icon (files, not API routes). */
export const dashboardAssets: Router = Router()
  .use(UI_STATIC_PATH, uiStatic())
  .use(assetsPath, express.static(assetsDir, { index: false, maxAge: '1h', fallthrough: false }));

/**
 * The web dashboard at `/`: sign-in for visitors, the admin overview, a customer's licenses.
 * Mounted after the session middleware and without the panic guard: it stays reachable in panic mode.
 */
export function dashboardRoutes(deps: {
  service: DashboardService;
  public: Guard;
  admin: Guard;
  customerHome: (res: Response, username: string, customer: CustomerRecord) => Promise<void>;
}): AnyRoute[] {
  const { service } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/favicon.ico',
      summary: 'No icon here (the pages link an SVG icon)',
      tags: ['pages'],
      guard: deps.public,
      responses: { 204: { description: 'Nothing' } },
      // Browsers ask for it on every site.
      handler: ({ res }) => {
        res.status(204).end();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/',
      summary: 'The dashboard page',
      tags: ['pages'],
      guard: deps.public,
      query: pageQuery,
      description: 'Sign-in for visitors, the overview for admins (after two-factor), their licenses for customers.',
      responses: { 200: { description: 'The page', contentType: 'text/html' } },
      handler: async ({ query, req, res }) => {
        res.set('Cache-Control', 'no-store');
        const user = req.user;
        if (!user) return res.render('dashboard/sign-in', signInData(query.error));

        const visitor = await service.visitor(user.id);
        if (visitor.kind === 'admin') {
          const error = await guardResult(deps.admin, req, res);
          if (error) {
            const step = twoFactorStep(error);
            if (!step) throw error;
            return res.render('dashboard/two-factor', twoFactorData(user.username, step));
          }
          return res.render('dashboard/admin', adminData(user.username, await service.adminOverview()));
        }
        if (visitor.kind === 'customer') return deps.customerHome(res, user.username, visitor.customer);
        res.render('dashboard/no-access', noAccessData(user.username));
      },
    }),
  ];
}

/**
 * 404 with an HTML page for every unknown path outside `/api` (any method; HEAD gets the headers
 * only), instead of Express's "Cannot GET". Mount after every router and after `apiNotFound`.
 */
export const pageNotFound: RequestHandler = (req, res) => {
  res.status(404).set('Cache-Control', 'no-store').render('errors/not-found', notFoundData(req.user?.username));
};
