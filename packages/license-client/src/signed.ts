import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

// What every check of a signed answer shares: the service signs the exact body bytes it sends
// (X-License-Signature, base64 Ed25519), validation answers and machine answers alike, and each
// answer states the request it answers (`request`) and when (`issuedAt`).

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const isString = (value: unknown): value is string => typeof value === 'string';

/** Decodes canonical base64 only: Node's decoder skips stray characters, which would let a changed text pass. */
export function strictBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** One of the service's public keys: its PEM text or a KeyObject. */
export type PublicKeyInput = string | KeyObject;
/**
 * The service's public key, or several: a service that rotated its signing key signs with the
 * new one, while answers and files signed by the old one stay good in a client that holds both.
 */
export type PublicKeys = PublicKeyInput | readonly PublicKeyInput[];

export function publicKeyOf(publicKeyPem: PublicKeyInput): KeyObject {
  return typeof publicKeyPem === 'string' ? createPublicKey(publicKeyPem) : publicKeyPem;
}

/** The service's id of an Ed25519 public key (`kid`): first 16 hex digits of the SHA-256 of its raw 32 bytes. */
export function keyIdOf(publicKeyPem: PublicKeyInput): string {
  const x = publicKeyOf(publicKeyPem).export({ format: 'jwk' }).x;
  if (!x) throw new Error('Not an Ed25519 public key');
  return createHash('sha256').update(Buffer.from(x, 'base64url')).digest('hex').slice(0, 16);
}

/** Every key given, as KeyObjects. */
export function publicKeysOf(keys: PublicKeys): KeyObject[] {
  return (Array.isArray(keys) ? (keys as readonly PublicKeyInput[]) : [keys as PublicKeyInput]).map(publicKeyOf);
}

/** The key among `keys` whose kid is `kid`, if any. */
export function keyById(keys: PublicKeys, kid: string): KeyObject | undefined {
  return publicKeysOf(keys).find((key) => keyIdOf(key) === kid);
}

export type SignedBodyFailure = 'missing-signature' | 'bad-signature' | 'malformed' | 'unknown-key';

/**
 * The parsed JSON object of a body whose signature holds, or why not. With `keyId` (the
 * answer's X-License-Key-Id header) only the key of that id is tried, and `unknown-key` says
 * none of the keys given has it; without, each key is tried.
 */
export function verifySignedBody(
  body: Buffer | string,
  signature: string | null | undefined,
  publicKeys: PublicKeys,
  keyId?: string | null,
): { ok: true; body: Record<string, unknown> } | { ok: false; reason: SignedBodyFailure } {
  if (!signature) return { ok: false, reason: 'missing-signature' };
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const signatureBytes = strictBase64(signature);
  let candidates = publicKeysOf(publicKeys);
  if (keyId) {
    candidates = candidates.filter((key) => keyIdOf(key) === keyId);
    if (candidates.length === 0) return { ok: false, reason: 'unknown-key' };
  }
  if (!signatureBytes || !candidates.some((key) => verify(null, bytes, key, signatureBytes)))
    return { ok: false, reason: 'bad-signature' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  return isRecord(parsed) ? { ok: true, body: parsed } : { ok: false, reason: 'malformed' };
}

/** What a request asked, as the service states it in `request`: the key and hwid trimmed, the entitlements sorted. */
export interface AnsweredRequest {
  key: string | null;
  hwid: string | null;
  entitlements: string[] | null;
  nonce: string | null;
}

/** What the application sent: the key, and the hwid (validate) or fingerprint (machines). */
export interface SentRequest {
  key: string;
  hwid?: string | null;
  entitlements?: readonly string[] | null;
}

/** Code-point order, as the service sorts (UTF-8 bytes compare in code-point order). */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The `request` an answer to this request must carry. */
export function expectedRequest(sent: SentRequest, nonce: string | undefined): AnsweredRequest {
  return {
    key: sent.key.trim(),
    hwid: isString(sent.hwid) ? sent.hwid.trim() : null,
    entitlements: sent.entitlements ? [...sent.entitlements].sort(byCodePoint) : null,
    nonce: nonce ?? null,
  };
}

/** Whether the answer's `request` is exactly the request sent: a proxy that changed the key or hwid shows here. */
export function answersRequest(answer: Record<string, unknown>, expected: AnsweredRequest): boolean {
  const { request } = answer;
  if (!isRecord(request)) return false;
  const { entitlements } = request;
  const sameCodes =
    expected.entitlements === null
      ? entitlements === null
      : Array.isArray(entitlements) &&
        entitlements.length === expected.entitlements.length &&
        expected.entitlements.every((code, at) => entitlements[at] === code);
  return (
    request.key === expected.key && request.hwid === expected.hwid && request.nonce === expected.nonce && sameCodes
  );
}
