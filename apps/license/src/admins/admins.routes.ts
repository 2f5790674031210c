import { Router, type RequestHandler } from 'express';
import { HttpError } from '@app/http';
import type { JwtService } from './jwt.js';

/**
 * Why no token can be issued, naming the variables that turn it on. 501: this deployment does not
 * offer the function, and asking again will not change that (503 would invite retries).
 */
function notIssuingReason(jwt: JwtService): string {
  return jwt.enabled
    ? 'JWT issuing is not configured: this service only verifies tokens with JWT_PUBLIC_KEY; set JWT_PRIVATE_KEY (its private key) to issue them here'
    : 'JWT is not configured: set JWT_SECRET (HS256), or JWT_PUBLIC_KEY with JWT_PRIVATE_KEY (RS256 or EdDSA)';
}

/** `POST /api/auth/token`: a signed-in admin obtains a bearer token for programs. */
export function adminTokenRoutes(deps: { requireAdmin: RequestHandler; jwt: JwtService; now: () => Date }): Router {
  const router = Router();
  router.post('/api/auth/token', deps.requireAdmin, async (req, res) => {
    if (!deps.jwt.canIssue) throw new HttpError(501, notIssuingReason(deps.jwt));
    const { token, expiresAt } = await deps.jwt.issue(req.admin!.userId, deps.now());
    res.json({ success: true, token, tokenType: 'Bearer', expiresAt: expiresAt.toISOString() });
  });
  return router;
}
