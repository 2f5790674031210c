import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import { appError } from '../common/error-codes.js';
import type { AdminRecord } from '../common/request.js';
import { findAdminByUserId, findAdminForToken } from './admins.repository.js';
import type { JwtService } from './jwt.js';

/**
 * Called after an admin is recognised by their session; throws `HttpError(403, ...)` while the
 * admin still has to verify two-factor. Requests authenticated by a JWT skip it: the token was
 * issued to a fully verified session.
 */
export type TwoFactorGate = (admin: AdminRecord, req: Request) => Promise<void>;

export interface RequireAdminDeps {
  pool: pg.Pool;
  jwt: JwtService;
  twoFactorGate?: TwoFactorGate;
}

/**
 * `Authorization: Bearer <JWT>` authenticates by the token alone (refused once its `jti` is
 * revoked); otherwise the session does. Either way the user must be a current admin.
 */
export function requireAdmin(deps: RequireAdminDeps): RequestHandler {
  return async (req, _res, next) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    let via: AdminRecord['via'];
    let row: Awaited<ReturnType<typeof findAdminByUserId>>;
    if (bearer) {
      if (!deps.jwt.enabled) throw appError('UNAUTHORIZED');
      let claims: { userId: string; tokenId?: string };
      try {
        claims = await deps.jwt.verifyClaims(bearer.trim());
      } catch {
        throw appError('UNAUTHORIZED');
      }
      const found = await findAdminForToken(deps.pool, claims.userId, claims.tokenId);
      if (found?.revoked) throw appError('UNAUTHORIZED');
      row = found;
      via = 'jwt';
    } else {
      if (!req.user) throw appError('UNAUTHORIZED');
      row = await findAdminByUserId(deps.pool, req.user.id);
      via = 'session';
    }
    if (!row) throw appError('FORBIDDEN');
    req.admin = { id: row.id, userId: row.user_id, username: row.username, via };
    if (via === 'session' && deps.twoFactorGate) await deps.twoFactorGate(req.admin, req);
    next();
  };
}
