import { Router, type Request, type RequestHandler } from 'express';
import { HttpError, validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import type { AdminRecord } from '../common/request.js';
import { disableBodySchema, enableBodySchema, verifyBodySchema, type DisableBody, type EnableBody, type VerifyBody } from './two-factor.schema.js';
import type { TwoFactorService } from './two-factor.service.js';
import { isSessionVerified, markSessionVerified } from './two-factor.session.js';

export interface TwoFactorRoutesDeps {
  service: TwoFactorService;
  /** requireAdmin WITHOUT the two-factor gate: these routes are how a session gets through it. */
  requireAdmin: RequestHandler;
}

const adminOf = (req: Request): AdminRecord => {
  if (!req.admin) throw HttpError.unauthorized();
  return req.admin;
};

/** A JWT was issued to a verified session; a session counts once it has verified a code. */
const verified = (req: Request, admin: AdminRecord) => admin.via === 'jwt' || isSessionVerified(req, admin.userId);

export function twoFactorRoutes({ service, requireAdmin }: TwoFactorRoutesDeps): Router {
  const router = Router();
  router.use('/api/2fa', requireAdmin, (req, res, next) => {
    res.set('Cache-Control', 'no-store'); // secrets and backup codes must not be cached
    next();
  });

  router.get('/api/2fa/status', async (req, res) => {
    const admin = adminOf(req);
    res.json({ success: true, ...(await service.status(admin.userId, verified(req, admin))) });
  });

  router.get('/api/2fa/setup', async (req, res) => {
    const admin = adminOf(req);
    res.json({ success: true, ...(await service.setup(actorOf(req), admin.username ?? admin.userId)) });
  });

  router.post('/api/2fa/enable', validate({ body: enableBodySchema }), async (req, res) => {
    const admin = adminOf(req);
    const { token } = req.valid.body as EnableBody;
    const backupCodes = await service.enable(actorOf(req), token);
    // The admin has just proved they hold the authenticator: this session is verified.
    markSessionVerified(req, admin.userId);
    res.json({ success: true, enabled: true, backupCodes });
  });

  router.post('/api/2fa/verify', validate({ body: verifyBodySchema }), async (req, res) => {
    const admin = adminOf(req);
    const result = await service.verify(actorOf(req), req.valid.body as VerifyBody, isSessionVerified(req, admin.userId));
    markSessionVerified(req, admin.userId);
    res.json({ success: true, verified: true, method: result.method, backupCodesRemaining: result.backupCodesRemaining });
  });

  router.post('/api/2fa/disable', validate({ body: disableBodySchema }), async (req, res) => {
    const admin = adminOf(req);
    await service.disable(actorOf(req), verified(req, admin), (req.valid.body as DisableBody).password);
    res.json({ success: true, enabled: false });
  });

  return router;
}
