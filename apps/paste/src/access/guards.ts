import type { Request, RequestHandler } from 'express';
import type { Auth } from '@app/auth';
import { requireOwner } from '@app/auth';
import { HttpError } from '@app/http';
import { createRateLimiter, type Redis, type RebuildableLimiter } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';
import type { ApiKeyService } from '../api-keys/api-key.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';

export const RATE_LIMIT_MESSAGE = 'Too many requests, please try again later';

/**
 * The owner's budget on the routes that change the limits (GET /api/settings, POST
 * /api/settings/security, the /admin page): fixed, so an owner who sets apiRateLimit too low
 * can still open the settings and raise it.
 */
export const OWNER_SETTINGS_LIMIT = { limit: 300, windowMs: 15 * 60_000 };

export interface Access {
  webLimiter: RebuildableLimiter;
  apiLimiter: RebuildableLimiter;
  /**
   * Owner reads: API limit, then a signed-in owner (403 otherwise). The signed-in owner counts
   * against a count of their own (by user id), everyone else against their IP's, so no
   * anonymous traffic from the owner's address can lock the owner out.
   */
  owner: RequestHandler[];
  /** Owner changes: as `owner`, plus the session's CSRF token (403 `Invalid CSRF token`). */
  ownerWrite: RequestHandler[];
  /** As `owner` for the routes that change the limits: the owner counts against OWNER_SETTINGS_LIMIT. */
  ownerSettings: RequestHandler[];
  /** As `ownerWrite` for the routes that change the limits. */
  ownerSettingsWrite: RequestHandler[];
  /** The limit of the owner's settings page: OWNER_SETTINGS_LIMIT for the owner, the API limit for others. */
  settingsLimit: RequestHandler;
  /**
   * POST /api/paste: a request with the session's CSRF token comes from the site's own page and
   * counts against the web limit; any other is an API request (API limit, apiAccess,
   * apiKeyProtection). Sets `res.locals.viaApi`.
   */
  pasteGate: RequestHandler;
  /** Stops listening for settings changes. */
  close(): void;
}

export function createAccess(deps: {
  auth: Auth;
  settings: SettingsStore<PasteSettings>;
  apiKeys: ApiKeyService;
  ownerId: string | undefined;
  redis?: Redis;
  /** Prefix of the limiters' names (their Redis keys); tests sharing one Redis use their own. */
  rateLimitName?: string;
}): Access {
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
    if (next.webRateLimit !== previous.webRateLimit || next.webRateLimitWindow !== previous.webRateLimitWindow) webLimiter.rebuild();
    if (next.apiRateLimit !== previous.apiRateLimit || next.apiRateLimitWindow !== previous.apiRateLimitWindow) apiLimiter.rebuild();
  });

  // The session's token only: a request carrying an API key gets no pass here, since owner
  // endpoints authenticate by the session alone.
  const csrf: RequestHandler = (req, _res, next) => {
    next(auth.hasValidCsrfToken(req) ? undefined : new HttpError(403, 'Invalid CSRF token'));
  };
  // The specification lists 403 for every caller of an owner endpoint who is not the owner,
  // signed in or not: a visitor without a session gets 403 with a text that says what to do.
  const ownerCheck = requireOwner(deps.ownerId);
  const ownerOnly: RequestHandler = (req, res, next) => ownerCheck(req, res, (error?: unknown) =>
    next(error instanceof HttpError && error.status === 401 ? HttpError.forbidden('Owner sign-in required') : error));
  const owner = [apiLimiter.middleware, ownerOnly];

  const apiGuard = async (req: Request): Promise<void> => {
    const current = settings.get();
    if (!current.apiAccess) throw HttpError.forbidden('API access is disabled');
    if (current.apiKeyProtection) await deps.apiKeys.authenticate(req);
  };

  const pasteGate: RequestHandler = (req, res, next) => {
    if (auth.hasValidCsrfToken(req)) {
      res.locals.viaApi = false;
      return webLimiter.middleware(req, res, next);
    }
    res.locals.viaApi = true;
    apiLimiter.middleware(req, res, (error?: unknown) => {
      if (error) return next(error);
      apiGuard(req).then(() => next(), next);
    });
  };

  const ownerSettings = [settingsLimit, ownerOnly];
  return {
    webLimiter, apiLimiter, owner, ownerWrite: [...owner, csrf], ownerSettings, ownerSettingsWrite: [...ownerSettings, csrf],
    settingsLimit, pasteGate, close: unsubscribe,
  };
}
