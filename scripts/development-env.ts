import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../packages/config/src/index.js';

/** Where `npm start` keeps the license service's development JWT secret: in DATA_DIR, beside the databases. */
export function developmentJwtSecretFile(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'license-dev-jwt-secret');
}

/**
 * What `npm start` adds to the services' environment when it runs the development identity
 * provider, where anyone can sign in as anyone, so these open nothing more: the default paste
 * owner and license admin, and a JWT secret so a script can use the license admin API with a
 * bearer token (`npm run dev-token`, or Settings › API tokens). The secret is random, made once
 * and kept in DATA_DIR (mode 0600), so tokens outlive a restart. Variables already set win.
 * Never call it in production: it refuses.
 */
export function applyDevelopmentDefaults(
  env: NodeJS.ProcessEnv,
  config: Pick<Config, 'NODE_ENV' | 'DATA_DIR'> & Partial<Pick<Config, 'JWT_SECRET' | 'JWT_PUBLIC_KEY'>>,
): void {
  if (config.NODE_ENV === 'production') throw new Error('Development defaults are never applied in production');
  env.OWNER_ID ||= 'owner';
  env.ADMIN_IDS ||= 'admin';
  if (!config.JWT_SECRET && !config.JWT_PUBLIC_KEY) env.JWT_SECRET = storedSecret(developmentJwtSecretFile(config));
}

function storedSecret(file: string): string {
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
