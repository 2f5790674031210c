import { createPublicKey, createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT, importPKCS8 } from 'jose';
import { z } from 'zod';

export interface JwtOptions {
  secret?: string;
  publicKey?: string;
  privateKey?: string;
  ttlSeconds: number;
}

/**
 * Bearer tokens for programs: HS256 with a shared secret, or RS256/EdDSA verified with a public
 * key (issued elsewhere, or here when the matching private key is configured). `sub` (a
 * non-empty string) and `exp` (a number) are required, `jti` is a string when present; `alg: none`
 * never verifies because only the configured algorithm is accepted.
 * Tokens issued here carry a random `jti`, the id under which they are listed and revoked.
 */
export interface JwtService {
  enabled: boolean;
  /** The subject (the admin's provider user id). */
  verify(token: string): Promise<string>;
  /** The subject and the token's id (`jti`, absent in tokens issued elsewhere without one). */
  verifyClaims(token: string): Promise<{ userId: string; tokenId?: string }>;
  /** `ttlSeconds` overrides the configured lifetime. */
  issue(userId: string, now: Date, ttlSeconds?: number): Promise<{ token: string; expiresAt: Date; tokenId: string }>;
  canIssue: boolean;
  ttlSeconds: number;
}

/**
 * The claims a verified token must carry, as their types: a subject that is a string
 * (`String(["admin"])` is "admin", so an array must not pass as one), an expiry, an optional id.
 */
const claimsSchema = z.object({
  sub: z.string().min(1),
  exp: z.number(),
  jti: z.string().optional(),
});

export function createJwtService(options: JwtOptions): JwtService {
  const secret = options.secret ? createSecretKey(Buffer.from(options.secret, 'utf8')) : undefined;
  const publicKey: KeyObject | undefined =
    !secret && options.publicKey ? createPublicKey(options.publicKey.replace(/\\n/g, '\n')) : undefined;
  const algorithms = secret ? ['HS256'] : publicKey?.asymmetricKeyType === 'ed25519' ? ['EdDSA'] : ['RS256'];
  const verifyKey = secret ?? publicKey;
  const verifyClaims = async (token: string) => {
    if (!verifyKey) throw new Error('JWT access is not enabled');
    const { payload } = await jwtVerify(token, verifyKey, { algorithms, requiredClaims: ['exp', 'sub'] });
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) throw new Error('JWT claims are not valid');
    return { userId: claims.data.sub, ...(claims.data.jti !== undefined ? { tokenId: claims.data.jti } : {}) };
  };
  return {
    enabled: Boolean(verifyKey),
    canIssue: Boolean(secret || (publicKey && options.privateKey)),
    ttlSeconds: options.ttlSeconds,
    verifyClaims,
    async verify(token) {
      return (await verifyClaims(token)).userId;
    },
    async issue(userId, now, ttlSeconds = options.ttlSeconds) {
      const alg = algorithms[0]!;
      const key =
        secret ?? (options.privateKey ? await importPKCS8(options.privateKey.replace(/\\n/g, '\n'), alg) : undefined);
      if (!key) throw new Error('JWT issuing is not configured');
      const issuedAt = Math.floor(now.getTime() / 1000);
      const expiresAt = new Date((issuedAt + ttlSeconds) * 1000);
      const tokenId = randomUUID();
      const token = await new SignJWT({})
        .setProtectedHeader({ alg, typ: 'JWT' })
        .setSubject(userId)
        .setJti(tokenId)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ttlSeconds)
        .sign(key);
      return { token, expiresAt, tokenId };
    },
  };
}
