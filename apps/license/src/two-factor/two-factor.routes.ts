import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import type { AdminRecord } from '../common/request.js';
import { errorSchema, validationFailure } from '../common/responses.js';
import { disableBodySchema, enableBodySchema, verifyBodySchema } from './two-factor.schema.js';
import type { TwoFactorService } from './two-factor.service.js';
import { isSessionVerified, markSessionVerified } from './two-factor.session.js';

export interface TwoFactorRoutesDeps {
  service: TwoFactorService;
  /** The admin guard WITHOUT the two-factor gate: these routes are how a session gets through it. */
  adminWithoutTwoFactor: Guard;
}

const adminOf = (req: Request): AdminRecord => {
  if (!req.admin) throw appError('UNAUTHORIZED');
  return req.admin;
};

/** A JWT was issued to a verified session; a session counts once it has verified a code. */
const verified = (req: Request, admin: AdminRecord) => admin.via === 'jwt' || isSessionVerified(req, admin.userId);

/** Secrets and backup codes must not be cached. */
const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};

const tags = ['two-factor'];
const failures = {
  401: { description: 'Not signed in', schema: errorSchema },
  403: { description: 'Not an admin', schema: errorSchema },
};
const ok = z.object({ success: z.literal(true) });
const answers = {
  status: ok.extend({
    enabled: z.boolean(),
    required: z.boolean(),
    verified: z.boolean(),
    backupCodesRemaining: z.number().int(),
  }),
  setup: ok.extend({ secret: z.string(), otpauthUrl: z.string(), qrCode: z.string() }),
  enabled: ok.extend({ enabled: z.literal(true), backupCodes: z.array(z.string()) }),
  verified: ok.extend({
    verified: z.literal(true),
    method: z.enum(['totp', 'backup_code']),
    backupCodesRemaining: z.number().int(),
  }),
  disabled: ok.extend({ enabled: z.literal(false) }),
};

export function twoFactorRoutes({ service, adminWithoutTwoFactor: guard }: TwoFactorRoutesDeps): AnyRoute[] {
  const before = [noStore];
  return [
    defineRoute({
      method: 'get',
      path: '/api/2fa/status',
      summary: 'Whether two-factor is on and this session verified',
      tags,
      guard,
      before,
      responses: { 200: { description: 'The two-factor status', schema: answers.status }, ...failures },
      handler: async ({ req }) => {
        const admin = adminOf(req);
        return { success: true, ...(await service.status(admin.userId, verified(req, admin))) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/2fa/setup',
      summary: 'Start setting up two-factor: a new secret and its QR code',
      tags,
      guard,
      before,
      responses: {
        200: { description: 'The secret, its otpauth URL and QR code', schema: answers.setup },
        ...failures,
      },
      handler: async ({ req }) => {
        const admin = adminOf(req);
        return { success: true, ...(await service.setup(actorOf(req), admin.username ?? admin.userId)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/2fa/enable',
      summary: 'Turn two-factor on with a first code',
      tags,
      guard,
      before,
      body: enableBodySchema,
      responses: {
        200: { description: 'On, with the backup codes (shown once)', schema: answers.enabled },
        ...validationFailure,
        ...failures,
      },
      handler: async ({ body, req }) => {
        const admin = adminOf(req);
        const backupCodes = await service.enable(actorOf(req), body.token);
        // The admin has just proved they hold the authenticator: this session is verified.
        markSessionVerified(req, admin.userId);
        return { success: true, enabled: true, backupCodes };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/2fa/verify',
      summary: 'Verify this session with a code or a backup code',
      tags,
      guard,
      before,
      body: verifyBodySchema,
      responses: {
        200: { description: 'Verified', schema: answers.verified },
        ...validationFailure,
        ...failures,
        429: { description: 'Too many wrong codes', schema: errorSchema },
      },
      handler: async ({ body, req }) => {
        const admin = adminOf(req);
        const result = await service.verify(actorOf(req), body, isSessionVerified(req, admin.userId));
        markSessionVerified(req, admin.userId);
        return {
          success: true,
          verified: true,
          method: result.method,
          backupCodesRemaining: result.backupCodesRemaining,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/2fa/disable',
      summary: 'Turn two-factor off',
      tags,
      guard,
      before,
      body: disableBodySchema,
      responses: { 200: { description: 'Off', schema: answers.disabled }, ...validationFailure, ...failures },
      handler: async ({ body, req }) => {
        const admin = adminOf(req);
        await service.disable(actorOf(req), verified(req, admin), body.password);
        return { success: true, enabled: false };
      },
    }),
  ];
}
