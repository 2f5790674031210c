import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomInt } from 'node:crypto';
import bcrypt from 'bcrypt';

/**
 * Sealing of secrets at rest (TOTP secrets, webhook endpoints' signing secrets): AES-256-GCM under
 * a key derived from the session secret, one key per `purpose`.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function createSecretBox(sessionSecret: string, purpose = 'two-factor-secret'): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', sessionSecret, 'license-service', purpose, 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || !data) throw new Error('Unknown two-factor secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

// No 0/o, 1/l/i: codes are read from paper and typed by people.
const alphabet = '23456789abcdefghjkmnpqrstuvwxyz';
const BCRYPT_COST = 10;

/** A backup code like `k7m2q-x9d4h` (10 symbols of 31, about 50 bits; bcrypt makes guessing offline slow). */
export function generateBackupCode(): string {
  let code = '';
  for (let i = 0; i < 10; i += 1) code += alphabet[randomInt(alphabet.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** What people type may carry spaces, dashes or capitals. */
export function normalizeBackupCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export function hashBackupCode(code: string): Promise<string> {
  return bcrypt.hash(normalizeBackupCode(code), BCRYPT_COST);
}

/** The index of the hash the code matches, or -1. All are compared, so timing does not tell which. */
export async function matchBackupCode(code: string, hashes: string[]): Promise<number> {
  const normalized = normalizeBackupCode(code);
  if (normalized.length !== 10) return -1;
  const results = await Promise.all(hashes.map((hash) => bcrypt.compare(normalized, hash)));
  return results.indexOf(true);
}

/** A configured password may be given in plain text or as a bcrypt hash; either way only a hash is kept. */
export function hashConfiguredPassword(password: string): string {
  return /^\$2[aby]\$\d\d\$/.test(password) ? password : bcrypt.hashSync(password, BCRYPT_COST);
}

export function checkPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}
