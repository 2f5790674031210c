import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './load-config.js';

/** Where a service keeps the session secret it made itself: beside its database folder, in DATA_DIR. */
export function sessionSecretFile(config: Pick<Config, 'DATA_DIR'>, service: string): string {
  return path.resolve(config.DATA_DIR, `${service}-session-secret`);
}

export interface SessionSecret {
  /** undefined outside production without SESSION_SECRET: the app's fixed development value applies. */
  secret: string | undefined;
  /**
   * 'configured' (SESSION_SECRET), 'created' or 'stored' (the file), 'created-in-database' or
   * 'stored-in-database' (a database server), 'development'.
   */
  source: 'configured' | 'created' | 'stored' | 'created-in-database' | 'stored-in-database' | 'development';
  /** The file holding a created or stored secret. */
  file?: string;
}

/**
 * SESSION_SECRET when set. In production without it, a random secret made once and kept in
 * `DATA_DIR/<service>-session-secret` (mode 0600), so sessions survive restarts without anyone
 * having to invent a secret. Several instances of one service must share a secret: give them
 * the same SESSION_SECRET (or the same data folder).
 */
export function resolveSessionSecret(
  config: Pick<Config, 'SESSION_SECRET' | 'NODE_ENV' | 'DATA_DIR'>,
  service: string,
): SessionSecret {
  if (config.SESSION_SECRET) return { secret: config.SESSION_SECRET, source: 'configured' };
  if (config.NODE_ENV !== 'production') return { secret: undefined, source: 'development' };
  const file = sessionSecretFile(config, service);
  const stored = readSecret(file);
  if (stored) return { secret: stored, source: 'stored', file };
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    // 'wx': of two instances starting together on one data folder, the second reads the first's.
    // An empty file (a write cut short) is replaced.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: stored === undefined ? 'wx' : 'w' });
    chmodSync(file, 0o600);
  } catch (error) {
    const raced = (error as NodeJS.ErrnoException).code === 'EEXIST' ? readSecret(file) : undefined;
    if (raced) return { secret: raced, source: 'stored', file };
    throw error;
  }
  return { secret, source: 'created', file };
}

/**
 * Like resolveSessionSecret, for a service on a database server: a generated secret is kept in
 * the database (`keep` stores the offered value unless one is there, and answers the one kept),
 * so any number of instances share it and nothing is written to the data folder.
 */
export async function resolveSessionSecretInDatabase(
  config: Pick<Config, 'SESSION_SECRET' | 'NODE_ENV'>,
  keep: (generate: () => string) => Promise<{ value: string; created: boolean }>,
): Promise<SessionSecret> {
  if (config.SESSION_SECRET) return { secret: config.SESSION_SECRET, source: 'configured' };
  if (config.NODE_ENV !== 'production') return { secret: undefined, source: 'development' };
  const kept = await keep(() => randomBytes(48).toString('base64url'));
  return { secret: kept.value, source: kept.created ? 'created-in-database' : 'stored-in-database' };
}

/** The text a service logs at start-up about where its session secret comes from. */
export function describeSessionSecret({ source, file }: SessionSecret): string | undefined {
  switch (source) {
    case 'created':
      return `SESSION_SECRET is not set: generated a random one and stored it in ${file} (mode 0600); it is reused on every start. Set SESSION_SECRET instead when several instances must share it.`;
    case 'stored':
      return `SESSION_SECRET is not set: using the one generated earlier, stored in ${file}`;
    case 'created-in-database':
      return 'SESSION_SECRET is not set: generated a random one and stored it in the database, where every instance of the service reads it.';
    case 'stored-in-database':
      return 'SESSION_SECRET is not set: using the one generated earlier, stored in the database.';
    default:
      return undefined;
  }
}

/** The stored secret; '' for an empty file, undefined for none. */
function readSecret(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
