import { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { isHttpError, parseInput } from '@app/http';
import type { ResponseSigner } from './signing.js';
import type { validationService } from './validation.service.js';
import { validateBodySchema } from './validation.schema.js';

/** Sends exactly the bytes it signs: the signature covers the body as the client receives it. */
function sendSigned(res: Response, signer: ResponseSigner, status: number, body: Record<string, unknown>): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.status(status).set('X-License-Signature', signer.sign(bytes)).type('application/json').send(bytes);
}

const nonceOf = (body: unknown) => {
  const nonce = (body as { nonce?: unknown } | undefined)?.nonce;
  return typeof nonce === 'string' && nonce.length <= 256 ? { nonce } : {};
};

export function validationRoutes(deps: {
  validate: ReturnType<typeof validationService>;
  signer: ResponseSigner;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
}): Router {
  const { signer } = deps;
  const router = Router();

  router.post('/api/license/validate', deps.panicGuard, deps.limiter, async (req, res) => {
    const body = parseInput(validateBodySchema, req.body);
    const license = await deps.validate({ key: body.key, ip: body.ip ?? req.ip ?? null, hwid: body.hwid ?? null });
    sendSigned(res, signer, 200, { success: true, valid: true, license, ...nonceOf(req.body) });
  });

  router.get('/api/license/public-key', (_req, res) => {
    res.json({ success: true, algorithm: 'Ed25519', keyId: signer.keyId, publicKey: signer.publicKeyPem, publicKeyBase64: signer.publicKeyBase64 });
  });

  // Failures of validation (including 429 and 503) are signed as well: a spoofed server must
  // not be able to forge a "valid: false" either.
  const signedErrors: ErrorRequestHandler = (error, req, res, next) => {
    if (!isHttpError(error) || res.headersSent) return next(error);
    sendSigned(res, signer, error.status, {
      success: false, valid: false, error: error.message, ...(error.details ? { details: error.details } : {}), ...nonceOf(req.body),
    });
  };
  router.use('/api/license/validate', signedErrors);
  return router;
}
