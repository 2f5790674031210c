import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';

// Random bytes are drawn from the CSPRNG 4 KiB at a time, one call per 128 tokens instead of one
// per token (a measurable share of a create), as crypto.randomUUID does; no byte is used twice.
const entropy = Buffer.alloc(4096);
let entropyUsed = entropy.length;

function freshRandomBytes(count: number): Buffer {
  if (entropyUsed + count > entropy.length) {
    randomFillSync(entropy);
    entropyUsed = 0;
  }
  const bytes = entropy.subarray(entropyUsed, entropyUsed + count);
  entropyUsed += count;
  return bytes;
}

/** 32 random bytes, URL-safe (43 characters): the secret that lets the creator delete a paste. */
export function newDeleteToken(): string {
  return freshRandomBytes(32).toString('base64url');
}

/**
 * SHA-256, hex. A fast hash is enough for a 256-bit random secret (no dictionary to try), and
 * unlike bcrypt it costs nothing on the create path. `crypto.hash` is the one-shot form: no Hash
 * object per call, a fraction of createHash's cost for a string this short.
 */
export function hashDeleteToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Compares in constant time; a paste without a stored hash (made before tokens existed) matches nothing. */
export function deleteTokenMatches(token: string | undefined, storedHash: string | null): boolean {
  if (!token || !storedHash) return false;
  const given = hash('sha256', token, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === given.length && timingSafeEqual(given, stored);
}
