import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { createErrorHandler, describeError, parseInput, type Logger } from '@app/http';
import type { ResponseSigner } from './signing.js';
import type { validationService } from './validation.service.js';
import { validateBodySchema } from './validation.schema.js';

/** Sends exactly the bytes it signs: the signature covers the body as the client receives it. */
function sendSigned(res: Response, signer: ResponseSigner, status: number, body: Record<string, unknown>): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.status(status).set({
    'X-License-Signature': signer.sign(bytes),
    // An answer about a license must never come from a cache.
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Type': 'application/json; charset=utf-8',
  }).send(bytes);
}

/** The caller's address as a plain IPv4 when it arrives IPv4-mapped (`::ffff:10.0.0.1`). */
const callerIp = (ip: string | undefined) => (ip ? ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : null);

const nonceOf = (body: unknown) => {
  const nonce = (body as { nonce?: unknown } | undefined)?.nonce;
  return typeof nonce === 'string' && nonce.length <= 256 ? { nonce } : {};
};

export function validationRoutes(deps: {
  validate: ReturnType<typeof validationService>;
  signer: ResponseSigner;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
  logger: Logger;
}): Router {
  const { signer } = deps;
  const router = Router();
  // Mounted before the app's common middleware: its own small body parser.
  const json = express.json({ limit: '16kb' });

  router.post('/api/license/validate', deps.panicGuard, deps.limiter, json, async (req, res) => {
    const body = parseInput(validateBodySchema, req.body);
    const license = await deps.validate({ key: body.key, ip: body.ip ?? callerIp(req.ip), hwid: body.hwid ?? null });
    sendSigned(res, signer, 200, { success: true, valid: true, license, ...nonceOf(req.body) });
  });

  router.get('/api/license/public-key', deps.panicGuard, deps.limiter, (_req, res) => {
    res.json({ success: true, algorithm: 'Ed25519', keyId: signer.keyId, publicKey: signer.publicKeyPem, publicKeyBase64: signer.publicKeyBase64 });
  });

  // Failures of validation (including 429 and 503) are signed as well: a spoofed server must
  // not be able to forge a "valid: false" either. Only an unexpected error (500) goes to the
  // common handler, which logs it.
  const signedErrors: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const failure = describeError(error);
    if (failure.status === 500) return next(error);
    if (failure.headers) res.set(failure.headers);
    sendSigned(res, signer, failure.status, {
      success: false, valid: false, error: failure.message, ...(failure.details ? { details: failure.details } : {}), ...nonceOf(req.body),
    });
  };
  router.use('/api/license/validate', signedErrors, createErrorHandler({ style: 'license', logger: deps.logger }));
  return router;
}
