import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { Queryable } from '@app/db';
import { ensureSigningKey } from './signing-keys.repository.js';

export interface ResponseSigner {
  /** Base64 Ed25519 signature of exactly these bytes. */
  sign(body: Buffer): string;
  publicKeyPem: string;
  /** The 32-byte raw public key, base64. */
  publicKeyBase64: string;
  /** First 16 hex digits of the SHA-256 of the raw public key. */
  keyId: string;
}

const keyRowId = 'license-responses';

/**
 * The service's Ed25519 key pair, generated on first start and kept in the database so every
 * instance (and every restart) signs with the same key.
 */
export async function loadResponseSigner(db: Queryable): Promise<ResponseSigner> {
  const pair = generateKeyPairSync('ed25519');
  const row = await ensureSigningKey(db, keyRowId, {
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  });
  const privateKey = createPrivateKey(row.private_key_pem);
  const publicKey = createPublicKey(row.public_key_pem);
  const raw = rawPublicKey(publicKey);
  return {
    sign: (body) => sign(null, body, privateKey).toString('base64'),
    publicKeyPem: row.public_key_pem,
    publicKeyBase64: raw.toString('base64'),
    keyId: createHash('sha256').update(raw).digest('hex').slice(0, 16),
  };
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

/** What a client does: check a response body against the published PEM key. */
export function verifyResponse(publicKeyPem: string, body: Buffer | string, signatureBase64: string): boolean {
  return verify(null, Buffer.from(body), createPublicKey(publicKeyPem), Buffer.from(signatureBase64, 'base64'));
}
