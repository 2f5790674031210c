import type { RequestHandler } from 'express';
import { defineRoute, jsonBody, type AnswerSigner, type AnyRoute, type Guard } from '@app/http';
import { z } from 'zod';
import { errorSchema } from '../common/responses.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import { callerIp, signedAnswerFields, signedErrorSchema } from '../signing/signed-answers.js';
import type { ResponseSigner } from '../signing/signing.js';
import type { createValidationService } from './validation.service.js';
import { validateBodySchema } from './validation.schema.js';

const tags = ['validation'];

const count = z.number().int();
/** `valid: true` with the license's limits and what it has used; the nonce echoed when one was sent. */
export const validAnswerSchema = z.object({
  success: z.literal(true),
  valid: z.literal(true),
  ...signedAnswerFields,
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
export const refusedAnswerSchema = signedErrorSchema.extend({
  valid: z.literal(false),
  reason: z.string().optional(),
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
  /** Signs validate's answers (see signedSender). */
  signed: AnswerSigner;
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
      answer: 'signed',
      signer: deps.signed,
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
      handler: async ({ body, req }) => ({
        success: true,
        valid: true,
        license: await deps.validate({
          key: body.key,
          ip: body.ip ?? callerIp(req.ip),
          hwid: body.hwid ?? null,
          entitlements: body.entitlements,
        }),
      }),
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
