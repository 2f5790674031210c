import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT, importPKCS8 } from 'jose';

export interface JwtOptions {
  secret?: string;
  publicKey?: string;
  privateKey?: string;
  ttlSeconds: number;
}

/**
 * Bearer tokens for programs: HS256 with a shared secret, or RS256/EdDSA verified with a public
 * key (issued elsewhere, or here when the matching private key is configured). `exp` and `sub`
 * are required; `alg: none` never verifies because only the configured algorithms are accepted.
 */
export interface JwtService {
  enabled: boolean;
  verify(token: string): Promise<string>;
  issue(userId: string, now: Date): Promise<{ token: string; expiresAt: Date }>;
  canIssue: boolean;
}

export function createJwtService(options: JwtOptions): JwtService {
  const secret = options.secret ? createSecretKey(Buffer.from(options.secret, 'utf8')) : undefined;
  const publicKey: KeyObject | undefined = !secret && options.publicKey ? createPublicKey(options.publicKey.replace(/\\n/g, '\n')) : undefined;
  const algorithms = secret ? ['HS256'] : publicKey?.asymmetricKeyType === 'ed25519' ? ['EdDSA'] : ['RS256'];
  const verifyKey = secret ?? publicKey;
  return {
    enabled: Boolean(verifyKey),
    canIssue: Boolean(secret || (publicKey && options.privateKey)),
    async verify(token) {
      if (!verifyKey) throw new Error('JWT access is not enabled');
      const { payload } = await jwtVerify(token, verifyKey, { algorithms, requiredClaims: ['exp', 'sub'] });
      return String(payload.sub);
    },
    async issue(userId, now) {
      const alg = algorithms[0]!;
      const key = secret ?? (options.privateKey ? await importPKCS8(options.privateKey.replace(/\\n/g, '\n'), alg) : undefined);
      if (!key) throw new Error('JWT issuing is not configured');
      const issuedAt = Math.floor(now.getTime() / 1000);
      const expiresAt = new Date((issuedAt + options.ttlSeconds) * 1000);
      const token = await new SignJWT({}).setProtectedHeader({ alg, typ: 'JWT' }).setSubject(userId)
        .setIssuedAt(issuedAt).setExpirationTime(issuedAt + options.ttlSeconds).sign(key);
      return { token, expiresAt };
    },
  };
}
