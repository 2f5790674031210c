import type { Request, Response } from 'express';
import { defineRoute, type AnyRoute } from '@app/http';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import { consoleAdminName, consoleWrites, formErrors, redirectWithFlash, takeFlash } from '../console/admin-pages.js';
import {
  adminsPageData,
  generalPageData,
  rateLimitValuesOf,
  type RateLimitValues,
} from './admin-settings.page-data.js';
import {
  adminOf,
  pageResponses,
  success,
  tags,
  writeResponses,
  type SettingsPagesDeps,
} from './admin-settings.pages-common.js';
import { adminForm, panicForm, providerUserId, rateLimitForm, rateLimitInput } from './admin-settings.schema.js';

// The admin console's settings: panic mode and the rate limits (`/settings`), and the admins
// (`/settings/admins`). Forms post with the session's CSRF token in `_csrf`; writes go through
// the runtime-configuration and admins services (the API's rules and audit), then redirect to
// the page with a message shown once.

const rateLimitLabels = {
  max: 'Requests per window (public API)',
  windowSeconds: 'Window in seconds (public API)',
  userMax: 'Requests per window (signed-in person)',
  userWindowSeconds: 'Window in seconds (signed-in person)',
};

export function generalSettingsPages(deps: SettingsPagesDeps): AnyRoute[] {
  const { service } = deps;
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);
  const common = (req: Request, username: string) => ({
    username,
    messages: takeFlash(req),
    csrfToken: deps.csrfToken(req),
  });

  function renderGeneral(
    req: Request,
    res: Response,
    username: string,
    form?: { values: RateLimitValues; errors: string[] },
    status = 200,
  ) {
    const config = service.config();
    const view = {
      panicMode: config.security.panicMode,
      rateLimit: config.rateLimit,
      userRateLimit: config.userRateLimit,
    };
    res
      .status(status)
      .render(
        'settings/general',
        generalPageData(common(req, username), view, form ?? { values: rateLimitValuesOf(view), errors: [] }),
      );
  }

  async function renderAdmins(
    req: Request,
    res: Response,
    username: string,
    form = { userId: '', errors: [] as string[] },
    status = 200,
  ) {
    const admins = await service.admins();
    res
      .status(status)
      .render(
        'settings/admins',
        adminsPageData({ ...common(req, username), userId: adminOf(req).userId }, admins, form),
      );
  }

  return [
    defineRoute({
      method: 'get',
      path: '/settings',
      summary: 'The settings page: panic mode and rate limits',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description: 'Admins: the panic switch and the rate limits in force, with the form to change them.',
      responses: pageResponses,
      handler: ({ req, res }) => renderGeneral(req, res, consoleAdminName(req)),
    }),
    defineRoute({
      method: 'post',
      path: '/settings/panic',
      summary: 'Turn panic mode on or off (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: panicForm,
      description:
        '`enabled=on` turns it on, anything else off; through the runtime configuration (audited as `POST /api/admin/panic`).',
      responses: writeResponses,
      handler: async ({ body, req, res }) => {
        const on = body.enabled === 'on';
        await service.setPanicMode(actorOf(req), on);
        await redirectWithFlash(
          req,
          res,
          '/settings',
          success(
            on
              ? 'Panic mode is on: license validation and the customer portal answer 503 until you turn it off.'
              : 'Panic mode is off: license validation and the customer portal work again.',
          ),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/rate-limit',
      summary: 'Change the rate limits (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: rateLimitForm,
      description:
        'The public API limit (on/off, requests per window per IP) and the per-person limit of signed-in users; through the runtime configuration.',
      responses: writeResponses,
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const values: RateLimitValues = {
          enabled: body.enabled !== undefined,
          max: body.max ?? '',
          windowSeconds: body.windowSeconds ?? '',
          userMax: body.userMax ?? '',
          userWindowSeconds: body.userWindowSeconds ?? '',
        };
        const parsed = rateLimitInput.safeParse({
          ...values,
          max: values.max.trim() || undefined,
          windowSeconds: values.windowSeconds.trim() || undefined,
          userMax: values.userMax.trim() || undefined,
          userWindowSeconds: values.userWindowSeconds.trim() || undefined,
        });
        if (!parsed.success) {
          const errors = formErrors(parsed.error, rateLimitLabels);
          await deps.auditFailure(
            req,
            { action: 'update', resourceType: 'system', resourceId: 'config' },
            appError('VALIDATION_FAILED'),
          );
          return renderGeneral(req, res, username, { values, errors }, 400);
        }
        await service.saveRateLimits(actorOf(req), parsed.data);
        await redirectWithFlash(
          req,
          res,
          '/settings',
          success('Rate limits saved. They apply on every instance within a few seconds.'),
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/settings/admins',
      summary: 'The admins page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description:
        'Admins: every admin (provider user id, name, added, last sign-in), the form to add one, a remove button each.',
      responses: pageResponses,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        await renderAdmins(req, res, username);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/admins',
      summary: 'Add an admin by provider user id (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: adminForm,
      responses: {
        ...writeResponses,
        409: { description: 'Already an admin: the form says so', contentType: 'text/html' },
      },
      // Refused (already an admin): the form again, saying so.
      refused: {
        render: async (error, { body, req, res }) => {
          const entered = body.userId ?? '';
          await deps.auditFailure(
            req,
            { action: 'create', resourceType: 'admin', resourceId: providerUserId.parse(entered) },
            error,
          );
          await renderAdmins(
            req,
            res,
            consoleAdminName(req),
            { userId: entered, errors: [`${error.message}.`] },
            error.status,
          );
        },
      },
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const entered = body.userId ?? '';
        const parsed = providerUserId.safeParse(entered);
        if (!parsed.success) {
          const errors = [`Provider user id: ${parsed.error.issues[0]?.message ?? 'invalid'}.`];
          await deps.auditFailure(
            req,
            { action: 'create', resourceType: 'admin', resourceId: null },
            appError('VALIDATION_FAILED'),
          );
          return renderAdmins(req, res, username, { userId: entered, errors }, 400);
        }
        await service.addAdmin(actorOf(req), parsed.data);
        await redirectWithFlash(
          req,
          res,
          '/settings/admins',
          success(`${parsed.data} is now an admin. They get the admin console the next time they open it.`),
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/admins/remove',
      summary: 'Remove an admin (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: adminForm,
      description:
        'Never the last admin: the page then says so. The removal is remembered across restarts, even when ADMIN_IDS still lists the id.',
      responses: writeResponses,
      handler: async ({ body, req, res }) => {
        const userId = (body.userId ?? '').trim();
        const self = userId === adminOf(req).userId;
        await writeThenRedirect(req, res, {
          write: async () => {
            await service.removeAdmin(actorOf(req), userId);
            // Who removed themself is no admin any more: the front page says so.
            return {
              to: self ? '/' : '/settings/admins',
              message: success(self ? 'You are no longer an admin.' : `${userId} is no longer an admin.`),
            };
          },
          audit: { action: 'delete', resourceType: 'admin', resourceId: userId || null },
          back: '/settings/admins',
          notFoundPage: false,
        });
      },
    }),
  ];
}
