import type { Request, RequestHandler } from 'express';
import { carriesApiCredentials, type Auth } from '@app/auth';
import type { ApiKeyService } from '../api-keys/api-key.service.js';
import type { Access } from '../shared/access.js';

export interface DeleteAccess {
  /** Web limit for a request with the session's CSRF token (the site's pages), API limit for any other. */
  limiter: RequestHandler;
  /**
   * Whether the owner asks: a request with an API key (only the owner makes keys; a wrong key
   * is 401 `Invalid API key`), or the owner's session with its CSRF token.
   */
  isOwner(req: Request): Promise<boolean>;
}

/**
 * Deleting a paste is not gated by apiAccess or apiKeyProtection: the delete token (or the
 * owner's own credentials) authenticates the request by itself, and a creator can always
 * remove what they made.
 */
export function createDeleteAccess(deps: {
  auth: Pick<Auth, 'hasValidCsrfToken'>;
  access: Pick<Access, 'webLimiter' | 'apiLimiter'>;
  apiKeys: ApiKeyService;
  ownerId: string | undefined;
}): DeleteAccess {
  const { auth, access, apiKeys, ownerId } = deps;
  return {
    limiter: (req, res, next) =>
      (auth.hasValidCsrfToken(req) ? access.webLimiter : access.apiLimiter).middleware(req, res, next),
    async isOwner(req) {
      if (carriesApiCredentials(req)) {
        await apiKeys.authenticate(req);
        return true;
      }
      return ownerId !== undefined && req.user?.id === ownerId && auth.hasValidCsrfToken(req);
    },
  };
}
