import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
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
  const signBytes = await ed25519Signer(privateKey);
  return {
    sign: (body) => signBytes(body).toString('base64'),
    publicKeyPem: row.public_key_pem,
    publicKeyBase64: raw.toString('base64'),
    keyId: createHash('sha256').update(raw).digest('hex').slice(0, 16),
  };
}

/**
 * Every validation answer is signed, so the signature is a large share of a validation's CPU.
 * libsodium (sodium-native's prebuilt addon) signs in about half the time of node:crypto's
 * OpenSSL and gives the same bytes: Ed25519 signatures are deterministic.
 * Where the addon does not load (a platform without a prebuild), node:crypto signs.
 */
export async function ed25519Signer(privateKey: KeyObject): Promise<(body: Buffer) => Buffer> {
  const sodium = await import('sodium-native').then(
    (module) => module.default,
    () => undefined,
  );
  if (!sodium) return (body) => sign(null, body, privateKey);
  const secretKey = sodium.sodium_malloc(64);
  sodium.crypto_sign_seed_keypair(
    Buffer.alloc(32),
    secretKey,
    Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'),
  );
  return (body) => {
    const signature = Buffer.allocUnsafe(64);
    sodium.crypto_sign_detached(signature, body, secretKey);
    return signature;
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
