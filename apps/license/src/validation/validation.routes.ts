import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  createErrorHandler,
  defineRoute,
  describeError,
  jsonBody,
  type AnswerSigner,
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

/**
 * The one place that makes signed answers, so that no route can forget what they must carry:
 * the old `nonce` echo, `request` (what the service read from the request, so a client can tell
 * that a proxy changed the key or hwid on the way while keeping the nonce) and `issuedAt` (the
 * service's clock, for the client's rollback check). It sends exactly the bytes it signs: the
 * signature covers the body as the client receives it. `hwidField` names the body field that is
 * the request's hwid: `hwid` for validate, `fingerprint` for machines. Routes that answer
 * `signed` name it as their signer; the route pipeline completes, checks and sends their bodies.
 */
export function signedSender(deps: {
  signer: ResponseSigner;
  now: () => Date;
  hwidField: 'hwid' | 'fingerprint';
  logger: Logger;
  /** `valid: false` on refusals (validate's); machines' refusals carry no `valid`. */
  validFlag?: boolean;
}): AnswerSigner {
  const { signer, now, hwidField } = deps;
  const answerSigner: AnswerSigner = {
    complete: (req, body) => ({
      ...body,
      ...nonceOf(req.body),
      request: signedRequestOf(req.body, hwidField),
      issuedAt: now().toISOString(),
    }),
    send: (res, status, answer) => {
      const bytes = Buffer.from(JSON.stringify(answer), 'utf8');
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
    },
    errors: [],
  };
  answerSigner.errors = signedErrors({ signed: answerSigner, logger: deps.logger, validFlag: deps.validFlag });
  return answerSigner;
}

/** What a signed answer says it answers. */
export interface SignedRequest {
  key: string | null;
  hwid: string | null;
  entitlements: string[] | null;
  nonce: string | null;
}

const trimmedString = (value: unknown) => (typeof value === 'string' ? value.trim() : null);
/** Code-point order (UTF-8 bytes compare in code-point order), which a client in any language can repeat. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * The request as the service read it, from the body as sent: a body that failed validation
 * still names what it asked. Key and hwid are trimmed as the schemas trim them, so a success
 * states the parsed values; a field that is absent or of another type is null.
 */
export function signedRequestOf(body: unknown, hwidField: 'hwid' | 'fingerprint'): SignedRequest {
  const fields: Record<string, unknown> =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { entitlements, nonce } = fields;
  return {
    key: trimmedString(fields.key),
    hwid: trimmedString(fields[hwidField]),
    entitlements:
      Array.isArray(entitlements) && entitlements.every((code) => typeof code === 'string')
        ? [...entitlements].sort(byCodePoint)
        : null,
    nonce: typeof nonce === 'string' ? nonce : null,
  };
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
/** What every signed answer adds to its own fields (see `signedSender`). */
export const signedAnswerFields = {
  nonce: z.string().optional(),
  request: z.object({
    key: z.string().nullable(),
    hwid: z.string().nullable(),
    entitlements: z.array(z.string()).nullable(),
    nonce: z.string().nullable(),
  }),
  issuedAt: z.iso.datetime(),
};
/** A signed refusal: the error of every other answer, and what every signed answer carries. */
export const signedErrorSchema = errorSchema.extend(signedAnswerFields);
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

/**
 * The error renderer of signed routes: failures of validation (including 429 and 503) are signed
 * as well, so a spoofed server cannot forge a "valid: false" either. Only an unexpected error
 * (500) goes on to the common handler, which logs it. Mounted right after the signed routes.
 */
function signedErrors(deps: { signed: AnswerSigner; logger: Logger; validFlag?: boolean }): ErrorRequestHandler[] {
  const valid = deps.validFlag === false ? {} : { valid: false };
  // The panic guard and the rate limit refuse before the body is read: it is read now, under
  // the routes' own limit, so that these refusals too state the request they answer.
  const readBody = jsonBody({ limit: '16kb' });
  const signedFailure: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const failure = describeError(error);
    if (failure.status === 500) return next(error);
    const answer = () => {
      if (failure.headers) res.set(failure.headers);
      const reason = failure.extra?.reason;
      const body = {
        success: false,
        ...valid,
        error: failure.message,
        ...(typeof reason === 'string' ? { reason } : {}),
        ...(failure.details ? { details: failure.details } : {}),
      };
      deps.signed.send(res, failure.status, deps.signed.complete(req, body));
    };
    if (req.body !== undefined || req.complete) return answer();
    readBody(req, res, (unreadable?: unknown) => {
      if (unreadable) req.body = undefined; // not JSON: the request states nothing
      answer();
    });
  };
  return [signedFailure, createErrorHandler({ successFlag: true, logger: deps.logger })];
}
