import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { Queryable } from '@app/db';

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
 * instance (and every restart) signs with the same key. Concurrent first starts race on the
 * primary key: one insert wins and everyone reads the winner.
 */
export async function loadResponseSigner(db: Queryable): Promise<ResponseSigner> {
  const pair = generateKeyPairSync('ed25519');
  await db.query(
    `INSERT INTO signing_keys (id, algorithm, public_key_pem, private_key_pem) VALUES ($1, 'Ed25519', $2, $3)
     ON CONFLICT (id) DO NOTHING`,
    [keyRowId, pair.publicKey.export({ type: 'spki', format: 'pem' }), pair.privateKey.export({ type: 'pkcs8', format: 'pem' })]);
  const { rows } = await db.query<{ public_key_pem: string; private_key_pem: string }>(
    'SELECT public_key_pem, private_key_pem FROM signing_keys WHERE id = $1', [keyRowId]);
  const row = rows[0]!;
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
