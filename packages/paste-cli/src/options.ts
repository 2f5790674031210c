import { readFile } from 'node:fs/promises';

/** A mistake in how the command was called: the usage is shown, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure to report as it is (the server's error text, or the decrypt error): exit status 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

const DEFAULT_SERVER = 'http://localhost:8080';

/** `--server`, else PASTE_URL, else the service's default address; without a trailing slash. */
export function serverAddress(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const chosen = option ?? (env.PASTE_URL || DEFAULT_SERVER);
  let url: URL;
  try {
    url = new URL(chosen);
  } catch {
    throw new UsageError(`--server must be an http(s) address, not "${chosen}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--server must be an http(s) address, not "${chosen}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

const UNITS: Record<string, number> = { m: 60, h: 3_600, d: 86_400, w: 604_800, mo: 2_592_000 };

/** `10m`, `1h`, `1d`, `1w`, `1mo` (30 days) or whole seconds, as the server's `expiresIn`. */
export function expiresInSeconds(text: string): number {
  const match = /^(\d+)(m|h|d|w|mo)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--expires takes 10m, 1h, 1d, 1w, 1mo or a number of seconds, not "${text}"`);
  const seconds = Number(match[1]) * (match[2] ? UNITS[match[2]]! : 1);
  if (!Number.isSafeInteger(seconds) || seconds < 1)
    throw new UsageError(`--expires must be at least one second, not "${text}"`);
  return seconds;
}

export function viewLimit(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1)
    throw new UsageError(`--views takes a whole number of at least 1, not "${text}"`);
  return Number(text);
}

/** The password in a file: its first line's text (a final newline is not part of it). */
export async function readPasswordFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the password file ${file}: ${(error as Error).message}`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new UsageError(`The password file ${file} is empty`);
  return password;
}

/** A paste's link: where its server is, its slug, and the key in its fragment (if any). */
export interface PasteLink {
  /** The server's base address (what comes before /paste/). */
  server: string;
  slug: string;
  key: string | undefined;
}

export function parseLink(text: string): PasteLink {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`Not a paste link: "${text}" (expected http(s)://HOST/paste/SLUG#KEY)`);
  }
  const match = /^(.*)\/paste\/([A-Za-z0-9]+)(?:\/(?:raw|created))?\/?$/.exec(url.pathname);
  if (!match || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`Not a paste link: "${text}" (expected http(s)://HOST/paste/SLUG#KEY)`);
  }
  const key = url.hash.replace(/^#/, '');
  return { server: `${url.origin}${match[1]}`, slug: match[2]!, key: key === '' ? undefined : key };
}
