import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, URL-safe (43 characters): the secret that lets the creator delete a paste. */
export function newDeleteToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * SHA-256, hex. A fast hash is enough for a 256-bit random secret (no dictionary to try), and
 * unlike bcrypt it costs nothing on the create path.
 */
export function hashDeleteToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares in constant time; a paste without a stored hash (made before tokens existed) matches nothing. */
export function deleteTokenMatches(token: string | undefined, storedHash: string | null): boolean {
  if (!token || !storedHash) return false;
  const given = createHash('sha256').update(token).digest();
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === given.length && timingSafeEqual(given, stored);
}
