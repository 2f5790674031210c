import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '@app/config';
import { SESSION_START_WINDOW_MS } from '@app/auth';
import { createRateLimiter, type Redis } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';
import { UI_STATIC_PATH } from '@app/ui';
import type { JwtService } from '../admins/jwt.js';
import { assetsPath } from '../console/layout.js';
import type { LicenseSettings } from '../runtime-config/runtime-config.schema.js';

export const RATE_LIMIT_MESSAGE = 'Too many requests, please try again later';

/**
 * A signed-in person's budget on the routes that change the limits (GET/PUT /api/admin/config,
 * the console's rate-limit form) and on the console's front page: fixed, so an admin who sets
 * their own limit too low can still open the configuration and raise it.
 */
export const ADMIN_SETTINGS_LIMIT = { limit: 300, windowMs: 15 * 60_000 };

/**
 * Flips of the panic switch (POST /api/admin/panic, the console's panic form) per person: a
 * count of their own, which nothing else spends, so no other request (reads of the panic state
 * included) can lock an admin out of the switch.
 */
export const PANIC_SWITCH_LIMIT = { limit: 60, windowMs: 15 * 60_000 };

const settingsPaths = ['/api/admin/config', '/settings/rate-limit'];
const reachesSettings = (req: Request) => req.path === '/' || settingsPaths.includes(req.path);
const panicSwitchPaths = ['/api/admin/panic', '/settings/panic'];
/**
 * Reading the panic state (the API, the settings page that holds the switch) counts against no
 * per-person limit: it answers from the cached settings, and must stay open in an emergency.
 */
const readsPanicState = (req: Request) =>
  (req.method === 'GET' || req.method === 'HEAD') && (req.path === '/api/admin/panic' || req.path === '/settings');
const flipsPanicSwitch = (req: Request) => req.method === 'POST' && panicSwitchPaths.includes(req.path);

export interface RateLimits {
  /** The public API (validation, public key): per client IP, `rateLimit` of the runtime configuration. */
  publicLimit: RequestHandler;
  /**
   * Everything a signed-in person (session or admin JWT) does after the session middleware:
   * per user id, `userRateLimit` of the runtime configuration, apart from every per-IP count, so
   * no anonymous traffic from the same address can lock an admin or a customer out. Requests
   * without a verified identity pass on to their guard (which answers 401).
   */
  signedInLimit: RequestHandler;
  /** New anonymous sessions per IP (/auth/idp, a first CSRF token): SESSION_START_LIMIT a minute. */
  sessionStartLimit: RequestHandler;
  /** The public limit in force (stored values over the environment's). */
  effectivePublicLimit(this: void): { enabled: boolean; windowMs: number; max: number };
  /** Stops listening for settings changes. */
  close(): void;
}

export function createRateLimits(deps: {
  config: Config;
  settings: SettingsStore<LicenseSettings>;
  jwt: JwtService;
  redis?: Redis;
}): RateLimits {
  const { config, settings } = deps;
  const effectivePublicLimit = () => {
    const stored = settings.get().rateLimit;
    return {
      enabled: stored.enabled ?? config.RATE_LIMIT_ENABLED,
      windowMs: stored.windowMs ?? config.RATE_LIMIT_WINDOW_MS,
      max: stored.max ?? config.RATE_LIMIT_MAX,
    };
  };
  const publicLimiter = createRateLimiter({
    name: 'license:public',
    redis: deps.redis,
    current: () => {
      const { enabled, windowMs, max } = effectivePublicLimit();
      return { enabled, windowMs, limit: max };
    },
    message: RATE_LIMIT_MESSAGE,
  });
  const userOf = (_req: Request, res: Response) => res.locals.rateLimitUserId as string | undefined;
  const userLimiter = createRateLimiter({
    name: 'license:user',
    redis: deps.redis,
    identify: userOf,
    current: () => ({ limit: settings.get().userRateLimit.max, windowMs: settings.get().userRateLimit.windowMs }),
    message: RATE_LIMIT_MESSAGE,
  });
  const settingsLimiter = createRateLimiter({
    name: 'license:admin-settings',
    redis: deps.redis,
    identify: userOf,
    current: () => ADMIN_SETTINGS_LIMIT,
    message: RATE_LIMIT_MESSAGE,
  });
  const panicSwitchLimiter = createRateLimiter({
    name: 'license:panic-switch',
    redis: deps.redis,
    identify: userOf,
    current: () => PANIC_SWITCH_LIMIT,
    message: RATE_LIMIT_MESSAGE,
  });
  const sessionStartLimiter = createRateLimiter({
    name: 'license:session-start',
    redis: deps.redis,
    current: () => ({ limit: config.SESSION_START_LIMIT, windowMs: SESSION_START_WINDOW_MS }),
    message: RATE_LIMIT_MESSAGE,
  });
  const stopWatching = settings.onChange((next, previous) => {
    if (JSON.stringify(next.rateLimit) !== JSON.stringify(previous.rateLimit)) publicLimiter.rebuild();
    if (JSON.stringify(next.userRateLimit) !== JSON.stringify(previous.userRateLimit)) userLimiter.rebuild();
  });

  /** The verified user id: the admin JWT's subject (as requireAdmin prefers it), else the session's user. */
  const verifiedUserId = async (req: Request): Promise<string | undefined> => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!bearer) return req.user?.id;
    if (!deps.jwt.enabled) return undefined;
    try {
      return await deps.jwt.verify(bearer.trim());
    } catch {
      return undefined;
    }
  };

  const signedInLimit: RequestHandler = async (req, res, next) => {
    if (
      req.path.startsWith(`${assetsPath}/`) ||
      req.path.startsWith(`${UI_STATIC_PATH}/`) ||
      req.path === '/favicon.ico' ||
      readsPanicState(req)
    )
      return next();
    const userId = await verifiedUserId(req);
    if (userId === undefined) return next();
    res.locals.rateLimitUserId = userId;
    if (flipsPanicSwitch(req)) return panicSwitchLimiter.middleware(req, res, next);
    return (reachesSettings(req) ? settingsLimiter : userLimiter).middleware(req, res, next);
  };

  return {
    publicLimit: publicLimiter.middleware,
    sessionStartLimit: sessionStartLimiter.middleware,
    signedInLimit,
    effectivePublicLimit,
    close: stopWatching,
  };
}
