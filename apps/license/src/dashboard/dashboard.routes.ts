import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type Response } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { UI_STATIC_PATH, uiStatic } from '@app/ui';
import { assetsPath, noAccessData } from '../console/layout.js';
import { adminData, signInData, twoFactorData } from './dashboard.page-data.js';
import { guardResult, twoFactorStep } from '../console/admin-pages.js';
import type { CustomerRecord } from '../common/request.js';
import type { DashboardService } from './dashboard.service.js';

const assetsDir = path.join(import.meta.dirname, 'assets');
/**
 * @noble/hashes (ES modules with relative imports only), served from node_modules (no CDN): the
 * Releases page hashes a file as it reads it in pieces, which WebCrypto's one-shot digest cannot.
 */
const nobleHashesDir = path.dirname(createRequire(import.meta.url).resolve('@noble/hashes/sha2.js'));

/** `?error=` carries the sign-in failure's code back to the page; anything else is ignored. */
/** A page of this site to come back to after signing in: a path, never another origin (`//host`, `/\\host`). */
const localPath = z
  .string()
  .max(2000)
  .regex(/^\/(?![/\\])/)
  .optional()
  .catch(undefined);
const pageQuery = z.object({ error: z.string().optional().catch(undefined), returnTo: localPath });

/** The UI kit's stylesheet and script, and the page's own stylesheet, script and icon (files, not API routes). */
export const dashboardAssets: Router = Router()
  .use(UI_STATIC_PATH, uiStatic())
  .use(
    `${assetsPath}/vendor/noble-hashes`,
    express.static(nobleHashesDir, { index: false, maxAge: '1h', fallthrough: false }),
  )
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
      answer: 'page',
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
      answer: 'page',
      query: pageQuery,
      description: 'Sign-in for visitors, the overview for admins (after two-factor), their licenses for customers.',
      responses: { 200: { description: 'The page', contentType: 'text/html' } },
      handler: async ({ query, req, res }) => {
        res.set('Cache-Control', 'no-store');
        const user = req.user;
        if (!user) return res.render('dashboard/sign-in', signInData(query.error, query.returnTo));

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
