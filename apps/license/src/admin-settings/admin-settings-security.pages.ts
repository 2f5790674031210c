import type { Request, Response } from 'express';
import { defineRoute, type AnyRoute } from '@app/http';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import {
  consoleAdminName,
  consoleWrites,
  formErrors,
  redirectWithFlash,
  sentenceOf,
  takeFlash,
} from '../console/admin-pages.js';
import { redirectAfterSaving } from '../console/flash.js';
import { isSessionVerified, markSessionVerified } from '../two-factor/two-factor.session.js';
import { tokensPageData, twoFactorPageData, type TwoFactorSetupView } from './admin-settings.page-data.js';
import {
  adminOf,
  failure,
  pageResponses,
  success,
  tags,
  writeResponses,
  type SettingsPagesDeps,
} from './admin-settings.pages-common.js';
import { tokenForm, tokenInput, tokenParams, twoFactorCodeForm, type TokenLifetime } from './admin-settings.schema.js';

// The admin console's security settings: the signed-in admin's two-factor (`/settings/two-factor`)
// and the API tokens (`/settings/tokens`). A secret, the backup codes and a new token are shown
// once, in the answer to the form that made them (never kept in the session), with no-store.

const secretResponses = {
  ...writeResponses,
  200: { description: 'The page with what is shown once', contentType: 'text/html' },
};

export function securitySettingsPages(deps: SettingsPagesDeps): AnyRoute[] {
  const { service } = deps;
  const { writeThenRedirect } = consoleWrites(deps.auditFailure);
  const common = (req: Request, username: string) => ({
    username,
    messages: takeFlash(req),
    csrfToken: deps.csrfToken(req),
  });
  const labelOf = (req: Request) => adminOf(req).username ?? adminOf(req).userId;

  async function renderTwoFactor(
    req: Request,
    res: Response,
    username: string,
    step: { setup?: TwoFactorSetupView; backupCodes?: string[]; errors?: string[] } = {},
    status = 200,
  ) {
    const admin = adminOf(req);
    const twoFactorStatus = await service.twoFactorStatus(admin.userId, isSessionVerified(req, admin.userId));
    res.status(status).render('settings/two-factor', twoFactorPageData(common(req, username), twoFactorStatus, step));
  }

  async function renderTokens(
    req: Request,
    res: Response,
    username: string,
    extras: {
      form?: { label: string; lifetime: TokenLifetime; errors: string[] };
      issued?: { token: string; label: string; expiresAt: string };
    } = {},
    status = 200,
  ) {
    const { tokens, issuing } = await service.tokens();
    res.status(status).render(
      'settings/tokens',
      tokensPageData(
        common(req, username),
        { tokens, issuingError: issuing?.message, now: deps.now() },
        {
          form: extras.form ?? { label: '', lifetime: '30d', errors: [] },
          issued: extras.issued,
        },
      ),
    );
  }

  /** The setup again with what was wrong with the code (back to the two-factor page when none is pending). */
  async function enableAgain(req: Request, res: Response, message: string, status: number) {
    const setup = await service.pendingTwoFactorSetup(adminOf(req).userId, labelOf(req));
    if (!setup) return redirectWithFlash(req, res, '/settings/two-factor', failure(message));
    return renderTwoFactor(req, res, consoleAdminName(req), { setup, errors: [message] }, status);
  }

  /** The token form as typed, with what is wrong with it. */
  function tokenFormOf(body: { label?: string; lifetime?: string }, errors: string[]) {
    const values = { label: body.label ?? '', lifetime: body.lifetime ?? '' };
    const parsed = tokenInput.safeParse(values);
    return { label: values.label, lifetime: parsed.success ? parsed.data.lifetime : ('30d' as const), errors };
  }

  return [
    defineRoute({
      method: 'get',
      path: '/settings/two-factor',
      summary: 'The two-factor page of the signed-in admin',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description:
        'Whether two-factor is on, how many backup codes are left, and the buttons to set it up or turn it off.',
      responses: pageResponses,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        await renderTwoFactor(req, res, username);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/two-factor/setup',
      summary: 'Start setting up two-factor (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      description: 'A new secret (as `GET /api/2fa/setup`), then to the page that shows its QR code.',
      responses: writeResponses,
      refused: {
        render: (error, { req, res }) => redirectWithFlash(req, res, '/settings/two-factor', failure(error.message)),
      },
      handler: async ({ req, res }) => {
        await service.startTwoFactorSetup(actorOf(req), labelOf(req));
        return redirectAfterSaving(req, res, '/settings/two-factor/setup');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/settings/two-factor/setup',
      summary: 'The two-factor setup started: QR code, secret and the code to confirm',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      responses: pageResponses,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        const setup = await service.pendingTwoFactorSetup(adminOf(req).userId, labelOf(req));
        if (!setup) return redirectAfterSaving(req, res, '/settings/two-factor');
        await renderTwoFactor(req, res, username, { setup });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/two-factor/enable',
      summary: 'Turn two-factor on with a first code (form)',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      body: twoFactorCodeForm,
      description: 'As `POST /api/2fa/enable`: the answer shows the backup codes, once.',
      responses: secretResponses,
      refused: {
        render: (error, { req, res }) =>
          enableAgain(
            req,
            res,
            error.message === 'Invalid token'
              ? 'That code is not right: enter the code your app shows now.'
              : `${error.message}.`,
            error.status,
          ),
      },
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const code = (body.code ?? '').trim();
        if (!code || code.length > 16)
          return enableAgain(req, res, 'Enter the 6-digit code your authenticator app shows.', 400);
        const backupCodes = await service.enableTwoFactor(actorOf(req), code);
        // The admin has just proved they hold the authenticator: this session is verified.
        markSessionVerified(req, adminOf(req).userId);
        await renderTwoFactor(req, res, username, { backupCodes });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/two-factor/disable',
      summary: 'Turn two-factor off with a current code (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      body: twoFactorCodeForm,
      description:
        'Needs a code from the authenticator (or a backup code), and TWO_FACTOR_DISABLE_PASSWORD when it is set.',
      responses: writeResponses,
      handler: async ({ body, req, res }) => {
        const code = (body.code ?? '').trim();
        await writeThenRedirect(req, res, {
          write: async () => {
            if (!code) throw appError('TWO_FACTOR_INVALID_CODE');
            await service.disableTwoFactor(actorOf(req), code, body.password || undefined);
            return { to: '/settings/two-factor', message: success('Two-factor is off. Set it up again at any time.') };
          },
          back: '/settings/two-factor',
          say: (error) => sentenceOf(`Two-factor is still on: ${error.message}`),
          notFoundPage: false,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/settings/tokens',
      summary: 'The API tokens page',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      description: 'The form to issue a bearer token (JWT) and the tokens issued, with a revoke button each.',
      responses: pageResponses,
      handler: async ({ req, res }) => {
        const username = consoleAdminName(req);
        await renderTokens(req, res, username);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/tokens',
      summary: 'Issue an API token (form)',
      tags,
      guard: deps.adminPage,
      answer: 'page',
      body: tokenForm,
      description:
        'The answer shows the token once; it works as `Authorization: Bearer` on the admin API until it expires or is revoked.',
      responses: {
        ...secretResponses,
        501: { description: 'This deployment does not issue tokens', contentType: 'text/html' },
      },
      // Refused: the form again, saying why (audited as the API audits a refused token).
      refused: {
        render: async (error, { body, req, res }) => {
          await deps.auditFailure(
            req,
            { action: 'create', resourceType: 'admin', resourceId: adminOf(req).userId },
            error,
          );
          return renderTokens(
            req,
            res,
            consoleAdminName(req),
            { form: tokenFormOf(body, [`${error.message}.`]) },
            error.status,
          );
        },
      },
      handler: async ({ body, req, res }) => {
        const username = consoleAdminName(req);
        const parsed = tokenInput.safeParse({ label: body.label ?? '', lifetime: body.lifetime ?? '' });
        if (!parsed.success) {
          await deps.auditFailure(
            req,
            { action: 'create', resourceType: 'admin', resourceId: adminOf(req).userId },
            appError('VALIDATION_FAILED'),
          );
          return renderTokens(
            req,
            res,
            username,
            { form: tokenFormOf(body, formErrors(parsed.error, { label: 'Name', lifetime: 'Lifetime' })) },
            400,
          );
        }
        const issued = await service.issueToken(actorOf(req), parsed.data);
        res.set('Cache-Control', 'no-store');
        await renderTokens(req, res, username, {
          issued: { token: issued.token, label: parsed.data.label, expiresAt: issued.expiresAt },
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/settings/tokens/:id/revoke',
      summary: 'Revoke an API token (form)',
      tags,
      guard: deps.adminPage,
      answer: 'redirect',
      params: tokenParams,
      responses: writeResponses,
      handler: async ({ params, req, res }) => {
        await writeThenRedirect(req, res, {
          write: async () => {
            const token = await service.revokeToken(actorOf(req), params.id);
            const label = token.label ?? params.id.slice(0, 8);
            return {
              to: '/settings/tokens',
              message: success(`Token “${label}” revoked: programs that use it are refused from now on.`),
            };
          },
          audit: { action: 'revoke', resourceType: 'admin', resourceId: null },
          back: '/settings/tokens',
          notFoundPage: false,
        });
      },
    }),
  ];
}
