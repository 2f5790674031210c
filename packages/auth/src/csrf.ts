import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { csrfSync } from 'csrf-sync';
import { appError } from '@app/http';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Synchronizer tokens (csrf-sync): one random token kept in the session, sent back by the page
 * in `X-CSRF-Token` (or the form field `_csrf`). Sign-in regenerates the session, so the token
 * fetched before sign-in is gone afterwards: pages fetch a fresh one from /api/csrf-token.
 */
export function createCsrf() {
  const tokens = csrfSync({
    size: 32,
    getTokenFromState: (req) => req.session?.csrfToken,
    getTokenFromRequest: (req) => {
      const header = req.headers['x-csrf-token'];
      if (typeof header === 'string' && header !== '') return header;
      // A multipart body is parsed later (multer runs in the route), so only the header counts there.
      if (req.is('multipart/form-data')) return undefined;
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || !('_csrf' in body)) return undefined;
      return typeof body._csrf === 'string' ? body._csrf : undefined;
    },
  });

  function hasValidCsrfToken(req: Request): boolean {
    if (!req.session) return false;
    const received = tokens.getTokenFromRequest(req);
    const stored = tokens.getTokenFromState(req);
    if (typeof received !== 'string' || typeof stored !== 'string') return false;
    const a = Buffer.from(received);
    const b = Buffer.from(stored);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  const middleware: RequestHandler = (req, _res, next) => {
    if (SAFE_METHODS.has(req.method) || carriesApiCredentials(req)) return next();
    if (hasValidCsrfToken(req)) return next();
    next(appError('INVALID_CSRF_TOKEN'));
  };

  /** The session's token, created on first use. */
  function tokenFor(req: Request): string {
    return tokens.generateToken(req);
  }

  return { middleware, hasValidCsrfToken, tokenFor };
}

/**
 * A request carrying an API key or a bearer token is authenticated by that header, which a
 * browser never adds on its own to a cross-site request: it needs no CSRF token. The route's
 * guard must then authenticate by the header alone, never by the session cookie.
 */
export function carriesApiCredentials(req: Request): boolean {
  const authorization = req.headers.authorization;
  if (typeof authorization === 'string' && /^Bearer\s+\S/i.test(authorization)) return true;
  const apiKey = req.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey !== '';
}
