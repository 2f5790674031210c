import { appError } from '@app/http';
import type { JwtService } from './jwt.js';

/** Bearer tokens for programs, issued to a signed-in admin. */
export function createAdminTokenService(deps: { jwt: JwtService; now: () => Date }) {
  const { jwt } = deps;
  return {
    async issue(userId: string) {
      // Which variable is missing: verifying only (a public key without its private key), or none.
      if (!jwt.canIssue) throw appError(jwt.enabled ? 'JWT_ISSUING_NOT_CONFIGURED' : 'JWT_NOT_CONFIGURED');
      const { token, expiresAt } = await jwt.issue(userId, deps.now());
      return { token, tokenType: 'Bearer', expiresAt: expiresAt.toISOString() };
    },
  };
}
