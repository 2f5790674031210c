import type { Request } from 'express';
import { carriesApiCredentials, type Auth } from '@app/auth';
import type { ApiKeyService } from '../api-keys/api-keys.service.js';

/**
 * Whether the owner asks to delete a paste: a request with an API key (only the owner makes
 * keys; a wrong key is 401 `Invalid API key`), or the owner's session with its CSRF token.
 */
export type OwnerCheck = (req: Request) => Promise<boolean>;

export function createOwnerCheck(deps: {
  auth: Pick<Auth, 'hasValidCsrfToken'>;
  apiKeys: ApiKeyService;
  ownerId: string | undefined;
}): OwnerCheck {
  const { auth, apiKeys, ownerId } = deps;
  return async (req) => {
    if (carriesApiCredentials(req)) {
      await apiKeys.authenticate(req);
      return true;
    }
    return ownerId !== undefined && req.user?.id === ownerId && auth.hasValidCsrfToken(req);
  };
}
