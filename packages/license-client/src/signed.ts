import { createPublicKey, verify, type KeyObject } from 'node:crypto';

// What every check of a signed answer shares: the service signs the exact body bytes it sends
// (X-License-Signature, base64 Ed25519), validation answers and machine answers alike.

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const isString = (value: unknown): value is string => typeof value === 'string';

/** Decodes canonical base64 only: Node's decoder skips stray characters, which would let a changed text pass. */
export function strictBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

export function publicKeyOf(publicKeyPem: string | KeyObject): KeyObject {
  return typeof publicKeyPem === 'string' ? createPublicKey(publicKeyPem) : publicKeyPem;
}

export type SignedBodyFailure = 'missing-signature' | 'bad-signature' | 'malformed';

/** The parsed JSON object of a body whose signature holds, or why not. */
export function verifySignedBody(
  body: Buffer | string,
  signature: string | null | undefined,
  publicKeyPem: string | KeyObject,
): { ok: true; body: Record<string, unknown> } | { ok: false; reason: SignedBodyFailure } {
  if (!signature) return { ok: false, reason: 'missing-signature' };
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const signatureBytes = strictBase64(signature);
  if (!signatureBytes || !verify(null, bytes, publicKeyOf(publicKeyPem), signatureBytes))
    return { ok: false, reason: 'bad-signature' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  return isRecord(parsed) ? { ok: true, body: parsed } : { ok: false, reason: 'malformed' };
}
