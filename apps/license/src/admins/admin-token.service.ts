import type pg from 'pg';
import { withTransaction } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { findApiToken, insertApiToken, listApiTokens, revokeApiToken } from './api-tokens.repository.js';
import type { JwtService } from './jwt.js';

/** A token as the console lists it (the admin settings page shows them). */
export type { ApiTokenRow } from './api-tokens.repository.js';

/**
 * Bearer tokens for programs, issued to a signed-in admin. Each is recorded by its `jti` (never
 * the token itself), so the console lists them and an admin can revoke one.
 */
export function createAdminTokenService(deps: { pool: pg.Pool; jwt: JwtService; now: () => Date }) {
  const { pool, jwt, now } = deps;
  return {
    /** Whether this deployment issues tokens; the error that says which variable is missing otherwise. */
    issuing: () =>
      jwt.canIssue ? undefined : appError(jwt.enabled ? 'JWT_ISSUING_NOT_CONFIGURED' : 'JWT_NOT_CONFIGURED'),

    /** The configured lifetime (`POST /api/auth/token` issues tokens of it). */
    defaultTtlSeconds: jwt.ttlSeconds,

    async issue(actor: Actor, options: { label?: string | null; ttlSeconds?: number } = {}) {
      // Which variable is missing: verifying only (a public key without its private key), or none.
      if (!jwt.canIssue) throw appError(jwt.enabled ? 'JWT_ISSUING_NOT_CONFIGURED' : 'JWT_NOT_CONFIGURED');
      const createdAt = now();
      const { token, expiresAt, tokenId } = await jwt.issue(actor.userId, createdAt, options.ttlSeconds);
      const label = options.label ?? null;
      await withTransaction(pool, async (client) => {
        await insertApiToken(client, { id: tokenId, adminUserId: actor.userId, label, createdAt, expiresAt });
        await recordAudit(client, actor, {
          action: 'create',
          resourceType: 'admin',
          resourceId: actor.userId,
          before: null,
          after: { apiToken: tokenId, label, expiresAt: expiresAt.toISOString() },
        });
      });
      return { token, tokenType: 'Bearer' as const, expiresAt: expiresAt.toISOString(), tokenId };
    },

    list: (limit = 100) => listApiTokens(pool, limit),

    /** Revokes a token: the admin guard refuses it from the next request on. Revoking it twice is not an error. */
    async revoke(actor: Actor, tokenId: string) {
      const token = await findApiToken(pool, tokenId);
      if (!token) throw appError('API_TOKEN_NOT_FOUND');
      await withTransaction(pool, async (client) => {
        if (!(await revokeApiToken(client, tokenId, now()))) return;
        await recordAudit(client, actor, {
          action: 'revoke',
          resourceType: 'admin',
          resourceId: token.adminUserId,
          before: { apiToken: tokenId, revoked: false },
          after: { apiToken: tokenId, revoked: true },
        });
      });
      return token;
    },
  };
}
export type AdminTokenService = ReturnType<typeof createAdminTokenService>;
