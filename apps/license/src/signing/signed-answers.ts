import type { ErrorRequestHandler } from 'express';
import { createErrorHandler, describeError, jsonBody, type AnswerSigner, type Logger } from '@app/http';
import { z } from 'zod';
import { errorSchema } from '../common/responses.js';
import type { ResponseSigner } from './signing.js';

// Signed answers, shared by every route that answers signed (validate, the machines requests):
// what they carry, how they are sent, and their failures signed as well.

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
