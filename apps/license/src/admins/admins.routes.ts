import { Router, type RequestHandler } from 'express';
import { HttpError } from '@app/http';
import type { JwtService } from './jwt.js';

/** `POST /api/auth/token`: a signed-in admin obtains a bearer token for programs. */
export function adminTokenRoutes(deps: { requireAdmin: RequestHandler; jwt: JwtService; now: () => Date }): Router {
  const router = Router();
  router.post('/api/auth/token', deps.requireAdmin, async (req, res) => {
    if (!deps.jwt.canIssue) throw HttpError.badRequest('JWT access is not enabled');
    const { token, expiresAt } = await deps.jwt.issue(req.admin!.userId, deps.now());
    res.json({ success: true, token, tokenType: 'Bearer', expiresAt: expiresAt.toISOString() });
  });
  return router;
}
