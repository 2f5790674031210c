import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import {
  createErrorHandler,
  defineRoute,
  describeError,
  jsonBody,
  type AnyRoute,
  type Guard,
  type Logger,
} from '@app/http';
import { z } from 'zod';
import { errorSchema } from '../common/responses.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import type { ResponseSigner } from './signing.js';
import type { createValidationService } from './validation.service.js';
import { validateBodySchema } from './validation.schema.js';

/** Sends exactly the bytes it signs: the signature covers the body as the client receives it. */
export function sendSigned(res: Response, signer: ResponseSigner, status: number, body: Record<string, unknown>): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res
    .status(status)
    .set({
      'X-License-Signature': signer.sign(bytes),
      'X-License-Key-Id': signer.keyId,
      // An answer about a license must never come from a cache.
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Type': 'application/json; charset=utf-8',
    })
    .send(bytes);
}

/** The caller's address as a plain IPv4 when it arrives IPv4-mapped (`::ffff:10.0.0.1`). */
export const callerIp = (ip: string | undefined) => (ip ? ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : null);

/** The nonce of a request body, echoed even when the body fails validation (the body as sent, not parsed). */
export const nonceOf = (body: unknown): { nonce?: string } => {
  if (typeof body !== 'object' || body === null || !('nonce' in body)) return {};
  const { nonce } = body;
  return typeof nonce === 'string' && nonce.length <= 256 ? { nonce } : {};
};

const tags = ['validation'];

const count = z.number().int();
/** `valid: true` with the license's limits and what it has used; the nonce echoed when one was sent. */
const validAnswerSchema = z.object({
  success: z.literal(true),
  valid: z.literal(true),
  nonce: z.string().optional(),
  license: z.object({
    key: z.string(),
    productId: z.string(),
    active: z.boolean(),
    expiresAt: z.iso.datetime().nullable(),
    ipLimit: count,
    hwidLimit: count,
    usedIps: z.array(z.string()),
    usedHwids: z.array(z.string()),
    licenseType: z.enum(licenseTypes),
    credits: z.object({ total: count, used: count, remaining: count }).optional(),
    entitlements: z.array(z.string()),
    policy: z.object({ _id: z.string(), name: z.string() }).nullable(),
    /** Present only while the license validates in its grace days after `expiresAt`: when they end. */
    graceEndsAt: z.iso.datetime().optional(),
    /** Present only for a `maintain` license validating past its expiry. */
    expired: z.literal(true).optional(),
  }),
});
/** `reason`: the admin's reason, only on `License suspended` and only when one was given. */
const refusedAnswerSchema = errorSchema.extend({
  valid: z.literal(false),
  reason: z.string().optional(),
  nonce: z.string().optional(),
});
const publicKeyAnswerSchema = z.object({
  success: z.literal(true),
  algorithm: z.literal('Ed25519'),
  keyId: z.string(),
  publicKey: z.string(),
  publicKeyBase64: z.string(),
  keys: z.array(
    z.object({
      kid: z.string(),
      publicKey: z.string(),
      createdAt: z.iso.datetime(),
      retiredAt: z.iso.datetime().nullable(),
    }),
  ),
});

export interface ValidationRoutesDeps {
  validate: ReturnType<typeof createValidationService>;
  signer: ResponseSigner;
  public: Guard;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
}

/**
 * Mounted before the app's common middleware, so they bring their own small body parser: the
 * hot path does nothing but parse, validate in one statement, sign and answer.
 */
export function validationRoutes(deps: ValidationRoutesDeps): AnyRoute[] {
  const { signer } = deps;
  const json = jsonBody({ limit: '16kb' });
  return [
    defineRoute({
      method: 'post',
      path: '/api/license/validate',
      summary: 'Validate a license key (signed answer)',
      tags,
      guard: deps.public,
      before: [deps.panicGuard, deps.limiter, json],
      body: validateBodySchema,
      description:
        'Every answer, failures included, carries `X-License-Signature`: the Ed25519 signature of the body bytes, and `X-License-Key-Id`: the kid of the key that made it (see `/api/license/public-key`).',
      responses: {
        200: { description: 'The license is valid', schema: validAnswerSchema },
        400: { description: 'Validation failed, or no such license', schema: refusedAnswerSchema },
        403: {
          description:
            'Expired, suspended, revoked, inactive, an entitlement missing (`details.missing`), over a limit or out of credits',
          schema: refusedAnswerSchema,
        },
        429: { description: 'Too many requests from this address', schema: refusedAnswerSchema },
        503: { description: 'Panic mode is on', schema: refusedAnswerSchema },
      },
      handler: async ({ body, req, res }) => {
        const license = await deps.validate({
          key: body.key,
          ip: body.ip ?? callerIp(req.ip),
          hwid: body.hwid ?? null,
          entitlements: body.entitlements,
        });
        sendSigned(res, signer, 200, { success: true, valid: true, license, ...nonceOf(req.body) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/license/public-key',
      summary: 'The public key that verifies validation answers',
      tags,
      guard: deps.public,
      before: [deps.panicGuard, deps.limiter],
      responses: {
        200: {
          description:
            'The current Ed25519 public key (PEM and base64) and `keys`: every key, newest first, retired ones included (`retiredAt`), so what they signed still verifies',
          schema: publicKeyAnswerSchema,
        },
        429: { description: 'Too many requests', schema: errorSchema },
        503: { description: 'Panic mode is on', schema: errorSchema },
      },
      handler: () => ({
        success: true,
        algorithm: 'Ed25519' as const,
        keyId: signer.keyId,
        publicKey: signer.publicKeyPem,
        publicKeyBase64: signer.publicKeyBase64,
        keys: signer.keys(),
      }),
    }),
  ];
}

/**
 * Failures of validation (including 429 and 503) are signed as well: a spoofed server must not
 * be able to forge a "valid: false" either. Only an unexpected error (500) goes on to the
 * common handler, which logs it. Mount right after the validation routes.
 */
export function signedValidationErrors(deps: {
  signer: ResponseSigner;
  logger: Logger;
  validFlag?: boolean;
}): ErrorRequestHandler[] {
  const valid = deps.validFlag === false ? {} : { valid: false };
  const signedErrors: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const failure = describeError(error);
    if (failure.status === 500) return next(error);
    if (failure.headers) res.set(failure.headers);
    const reason = failure.extra?.reason;
    sendSigned(res, deps.signer, failure.status, {
      success: false,
      ...valid,
      error: failure.message,
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(failure.details ? { details: failure.details } : {}),
      ...nonceOf(req.body),
    });
  };
  return [signedErrors, createErrorHandler({ successFlag: true, logger: deps.logger })];
}
