import type { Request, RequestHandler } from 'express';
import type { Auth } from '@app/auth';
import { carriesApiCredentials, requireOwner } from '@app/auth';
import { HttpError, publicAccess, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { createRateLimiter, type Redis, type RebuildableLimiter } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';

export const RATE_LIMIT_MESSAGE = 'Too many requests, please try again later';

/**
 * The owner's budget on the routes that change the limits (GET /api/settings, POST
 * /api/settings/security, the /admin page): fixed, so an owner who sets apiRateLimit too low
 * can still open the settings and raise it.
 */
export const OWNER_SETTINGS_LIMIT = { limit: 300, windowMs: 15 * 60_000 };

/** How the API description names the credentials the guards check. */
export const securitySchemes = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'paste.sid',
    description: "The owner's session (sign in at /auth/idp)",
  },
  csrf: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: "The session's token from GET /api/csrf-token",
  },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key made by the owner' },
  bearer: { type: 'http', scheme: 'bearer', description: 'An API key as a bearer token' },
};

const ownerSession: Record<string, string[]>[] = [{ session: [] }];
const ownerSessionWithCsrf: Record<string, string[]>[] = [{ session: [], csrf: [] }];
/** Anyone; the owner's API key where the settings ask for one. */
const optionalApiKey: Record<string, string[]>[] = [{}, { apiKey: [] }, { bearer: [] }];

/** Who may call which route, with the rate limit each counts against. */
/** The settings the guards read (a subset of the paste settings, named here so access/ needs no settings/). */
export interface GuardSettings {
  webRateLimit: number;
  webRateLimitWindow: number;
  apiAccess: boolean;
  apiRateLimit: number;
  apiRateLimitWindow: number;
  apiKeyProtection: boolean;
}

export interface PasteGuards {
  webLimiter: RebuildableLimiter;
  apiLimiter: RebuildableLimiter;
  /** Anyone, no limit (the home page). */
  public: Guard;
  /** Anyone, under the web limit (reading pastes, the creator's pages). */
  web: Guard;
  /**
   * Owner reads: API limit, then a signed-in owner (403 otherwise). The signed-in owner counts
   * against a count of their own (by user id), everyone else against their IP's, so no
   * anonymous traffic from the owner's address can lock the owner out.
   */
  owner: Guard;
  /** Owner changes: as `owner`, plus the session's CSRF token (403 `Invalid CSRF token`). */
  ownerWrite: Guard;
  /**
   * Owner reads that programs may make too (the list of pastes): as `owner`, or an API key
   * (only the owner makes keys; a wrong one is 401 `Invalid API key`). Reads only: a key
   * never stands in for the session's CSRF token on a change.
   */
  ownerOrApiKey: Guard;
  /** As `owner` for the routes that change the limits: the owner counts against OWNER_SETTINGS_LIMIT. */
  ownerSettings: Guard;
  /** As `ownerWrite` for the routes that change the limits. */
  ownerSettingsWrite: Guard;
  /** The owner's dashboard page: strangers are sent to sign in, other users get 403. */
  ownerPage: Guard;
  /**
   * POST /api/paste: a request with the session's CSRF token comes from the site's own page and
   * counts against the web limit; any other is an API request (API limit, apiAccess,
   * apiKeyProtection). Sets `res.locals.viaApi`.
   */
  pasteCreate: Guard;
  /**
   * DELETE /api/paste/:slug: web limit for a request with the session's CSRF token (the site's
   * pages), API limit for any other. Not gated by apiAccess or apiKeyProtection: the delete
   * token (or the owner's own credentials) authenticates the request by itself.
   */
  pasteDelete: Guard;
  /** Stops listening for settings changes. */
  close(): void;
}

export function createGuards(deps: {
  auth: Auth;
  /** The settings feature's store: the guards read the limits and the API switches from it. */
  settings: Pick<SettingsStore<GuardSettings>, 'get' | 'onChange'>;
  /** Rejects a request without a valid API key (the api-keys feature's service). */
  apiKeys: { authenticate(req: Request): Promise<void> };
  ownerId: string | undefined;
  redis?: Redis;
  /** Prefix of the limiters' names (their Redis keys); tests sharing one Redis use their own. */
  rateLimitName?: string;
}): PasteGuards {
  const prefix = deps.rateLimitName ?? 'paste';
  const { auth, settings } = deps;
  const minutes = (value: number) => value * 60_000;
  // Only the owner gets a count of their own: anyone can sign in with the identity provider,
  // and a fresh count per account would let one client multiply the per-IP limits.
  const signedInOwner = (req: Request): string | undefined =>
    deps.ownerId !== undefined && req.user?.id === deps.ownerId ? deps.ownerId : undefined;
  const webLimiter = createRateLimiter({
    name: `${prefix}:web`,
    redis: deps.redis,
    message: RATE_LIMIT_MESSAGE,
    identify: signedInOwner,
    current: () => ({ limit: settings.get().webRateLimit, windowMs: minutes(settings.get().webRateLimitWindow) }),
  });
  const apiLimiter = createRateLimiter({
    name: `${prefix}:api`,
    redis: deps.redis,
    message: RATE_LIMIT_MESSAGE,
    identify: signedInOwner,
    current: () => ({ limit: settings.get().apiRateLimit, windowMs: minutes(settings.get().apiRateLimitWindow) }),
  });
  const ownerSettingsLimiter = createRateLimiter({
    name: `${prefix}:owner-settings`,
    redis: deps.redis,
    message: RATE_LIMIT_MESSAGE,
    identify: signedInOwner,
    current: () => OWNER_SETTINGS_LIMIT,
  });
  const settingsLimit: RequestHandler = (req, res, next) =>
    (signedInOwner(req) ? ownerSettingsLimiter : apiLimiter).middleware(req, res, next);
  // A change saved here or on another instance (the store polls) applies to the next request.
  const unsubscribe = settings.onChange((next, previous) => {
    if (next.webRateLimit !== previous.webRateLimit || next.webRateLimitWindow !== previous.webRateLimitWindow)
      webLimiter.rebuild();
    if (next.apiRateLimit !== previous.apiRateLimit || next.apiRateLimitWindow !== previous.apiRateLimitWindow)
      apiLimiter.rebuild();
  });

  // The session's token only: a request carrying an API key gets no pass here, since owner
  // endpoints authenticate by the session alone.
  const csrf: RequestHandler = (req, _res, next) => {
    next(auth.hasValidCsrfToken(req) ? undefined : appError('INVALID_CSRF_TOKEN'));
  };
  // The specification lists 403 for every caller of an owner endpoint who is not the owner,
  // signed in or not: a visitor without a session gets 403 with a text that says what to do.
  const ownerCheck = requireOwner(deps.ownerId);
  const ownerOnly: RequestHandler = (req, res, next) =>
    ownerCheck(req, res, (error?: unknown) =>
      next(
        error instanceof HttpError && error.status === 401
          ? appError('FORBIDDEN', { message: 'Owner sign-in required' })
          : error,
      ),
    );
  const ownerPageCheck: RequestHandler = (req, res, next) => {
    if (!req.user) {
      if (req.method !== 'GET') return res.redirect(302, '/auth/idp');
      // Back to this page after signing in (/auth/idp keeps it with the OAuth state), not to the
      // new-paste form; a stranger's visit stores no session of its own.
      return res.redirect(302, `/auth/idp?returnTo=${encodeURIComponent(req.originalUrl)}`);
    }
    next(
      deps.ownerId && req.user.id === deps.ownerId
        ? undefined
        : appError('FORBIDDEN', { message: 'Only the site owner can change its settings' }),
    );
  };

  const apiGuard = async (req: Request): Promise<void> => {
    const current = settings.get();
    if (!current.apiAccess) throw appError('PASTE_API_DISABLED');
    if (current.apiKeyProtection) await deps.apiKeys.authenticate(req);
  };
  const pasteGate: RequestHandler = (req, res, next) => {
    // A plain-text post is the command line's: always an API request, whatever else it carries.
    if (res.locals.plainText !== true && auth.hasValidCsrfToken(req)) {
      res.locals.viaApi = false;
      return webLimiter.middleware(req, res, next);
    }
    res.locals.viaApi = true;
    apiLimiter.middleware(req, res, (error?: unknown) => {
      if (error) return next(error);
      apiGuard(req).then(() => next(), next);
    });
  };
  const deleteLimit: RequestHandler = (req, res, next) =>
    (auth.hasValidCsrfToken(req) ? webLimiter : apiLimiter).middleware(req, res, next);

  const ownerOrKey: RequestHandler = (req, res, next) => {
    if (!carriesApiCredentials(req)) return ownerOnly(req, res, next);
    deps.apiKeys.authenticate(req).then(() => next(), next);
  };

  const owner: Guard = { name: 'owner', middleware: [apiLimiter.middleware, ownerOnly], security: ownerSession };
  const ownerSettings: Guard = { name: 'owner', middleware: [settingsLimit, ownerOnly], security: ownerSession };
  return {
    webLimiter,
    apiLimiter,
    public: publicAccess,
    web: { name: 'public', middleware: [webLimiter.middleware] },
    owner,
    ownerWrite: { name: 'ownerWrite', middleware: [...owner.middleware, csrf], security: ownerSessionWithCsrf },
    ownerOrApiKey: {
      name: 'owner',
      middleware: [apiLimiter.middleware, ownerOrKey],
      security: [...ownerSession, { apiKey: [] }, { bearer: [] }],
    },
    ownerSettings,
    ownerSettingsWrite: {
      name: 'ownerWrite',
      middleware: [...ownerSettings.middleware, csrf],
      security: ownerSessionWithCsrf,
    },
    ownerPage: { name: 'owner', middleware: [settingsLimit, ownerPageCheck], security: ownerSession },
    pasteCreate: { name: 'apiKey', middleware: [pasteGate], security: optionalApiKey },
    pasteDelete: { name: 'apiKey', middleware: [deleteLimit], security: optionalApiKey },
    close: unsubscribe,
  };
}
