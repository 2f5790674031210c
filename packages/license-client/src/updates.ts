import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { clockRolledBack, createFileClockStore, type ClockStore } from './clock.js';
import {
  answersRequest,
  expectedRequest,
  isRecord,
  isString,
  verifySignedBody,
  type PublicKeys,
  type SignedBodyFailure,
} from './signed.js';

// Software updates: ask the service for the newest release this license may install (a signed
// answer, checked like validation's), then download an artifact, checking its size and SHA-256
// while it streams to disk.

/** A file of a release, as offered: `url` works for 10 minutes. */
export interface OfferedArtifact {
  filename: string;
  platform: string;
  arch: string;
  size: number;
  sha256: string;
  signature: string | null;
  url: string;
}

export interface OfferedUpgrade {
  version: string;
  channel: 'stable' | 'rc' | 'beta' | 'alpha' | 'dev';
  publishedAt: string;
  notes: string | null;
  artifacts: OfferedArtifact[];
}

export interface CheckForUpdateOptions {
  /** The license service, e.g. `https://licenses.example.com`. */
  baseUrl: string;
  key: string;
  /** The version running now (semver). */
  currentVersion: string;
  /** `stable` (default), `rc`, `beta`, `alpha` or `dev`: that channel and the more stable ones. */
  channel?: OfferedUpgrade['channel'];
  platform?: string;
  arch?: string;
  /** This machine's hardware id, validated as validate's `hwid`. */
  fingerprint?: string;
  /** The service's public key(s), shipped with the application. */
  publicKey: PublicKeys;
  clock?: ClockStore | false;
  now?: () => Date;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export type UpdateFailureReason =
  SignedBodyFailure | 'unreachable' | 'nonce-mismatch' | 'wrong-request' | 'clock-rolled-back' | 'refused';

export type UpdateCheckResult =
  | { ok: true; upgrade: OfferedUpgrade | null; issuedAt: string }
  | { ok: false; reason: UpdateFailureReason; status?: number; error?: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function asUpgrade(value: unknown): OfferedUpgrade | null | undefined {
  if (value === null) return null;
  if (!isRecord(value) || !isString(value.version) || !isString(value.publishedAt) || !Array.isArray(value.artifacts))
    return undefined;
  const artifacts = value.artifacts.filter(
    (artifact): artifact is OfferedArtifact =>
      isRecord(artifact) &&
      [artifact.filename, artifact.platform, artifact.arch, artifact.sha256, artifact.url].every(isString) &&
      Number.isSafeInteger(artifact.size),
  );
  return artifacts.length === value.artifacts.length ? (value as unknown as OfferedUpgrade) : undefined;
}

/**
 * Asks `POST /api/license/releases/upgrade` for the newest release this license may install.
 * The answer must be signed by the service, carry the random nonce sent and state the key and
 * fingerprint sent (`request`); `upgrade: null` means up to date.
 */
export async function checkForUpdate(options: CheckForUpdateOptions): Promise<UpdateCheckResult> {
  const send = options.fetch ?? fetch;
  const nonce = randomUUID();
  let status: number;
  let bytes: Buffer;
  let signature: string | null;
  let keyId: string | null;
  try {
    const res = await send(`${options.baseUrl.replace(/\/+$/, '')}/api/license/releases/upgrade`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        key: options.key,
        currentVersion: options.currentVersion,
        ...(options.channel ? { channel: options.channel } : {}),
        ...(options.platform ? { platform: options.platform } : {}),
        ...(options.arch ? { arch: options.arch } : {}),
        ...(options.fingerprint ? { fingerprint: options.fingerprint } : {}),
        nonce,
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    status = res.status;
    signature = res.headers.get('x-license-signature');
    keyId = res.headers.get('x-license-key-id');
    bytes = Buffer.from(await res.arrayBuffer());
  } catch (error) {
    return { ok: false, reason: 'unreachable', error: messageOf(error) };
  }
  const signed = verifySignedBody(bytes, signature, options.publicKey, keyId);
  if (!signed.ok) return { ok: false, reason: signed.reason, status };
  const { body } = signed;
  if (body.nonce !== nonce) return { ok: false, reason: 'nonce-mismatch', status };
  if (!answersRequest(body, expectedRequest({ key: options.key, hwid: options.fingerprint ?? null }, nonce)))
    return { ok: false, reason: 'wrong-request', status };
  const store = options.clock === undefined ? createFileClockStore() : options.clock;
  if (store && (await clockRolledBack(store, body.issuedAt, options.now?.() ?? new Date())))
    return { ok: false, reason: 'clock-rolled-back', status };
  if (status < 200 || status > 299 || body.success !== true)
    return { ok: false, reason: 'refused', status, ...(isString(body.error) ? { error: body.error } : {}) };
  const upgrade = asUpgrade(body.upgrade);
  if (upgrade === undefined || !isString(body.issuedAt)) return { ok: false, reason: 'malformed', status };
  return { ok: true, upgrade, issuedAt: body.issuedAt };
}

export type DownloadResult =
  | { ok: true; path: string; size: number; sha256: string }
  | {
      ok: false;
      reason: 'unreachable' | 'refused' | 'size-mismatch' | 'sha256-mismatch';
      status?: number;
      error?: string;
    };

/**
 * Downloads an offered artifact to `path`, streaming: the bytes go to `path.part` while their
 * SHA-256 is computed, and the download stops at the first byte over `size`. Only bytes of
 * exactly `size` whose SHA-256 is `sha256` are renamed to `path`; anything else is deleted.
 */
export async function downloadArtifact(
  artifact: Pick<OfferedArtifact, 'url' | 'size' | 'sha256'>,
  path: string,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<DownloadResult> {
  const send = options.fetch ?? fetch;
  const partial = `${path}.part`;
  let res: Response;
  try {
    res = await send(artifact.url, { signal: options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined });
  } catch (error) {
    return { ok: false, reason: 'unreachable', error: messageOf(error) };
  }
  if (!res.ok || !res.body) {
    let error: string | undefined;
    try {
      const body = (await res.json()) as { error?: unknown };
      error = isString(body.error) ? body.error : undefined;
    } catch {
      // not JSON
    }
    return { ok: false, reason: 'refused', status: res.status, ...(error ? { error } : {}) };
  }
  const hash = createHash('sha256');
  let received = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > artifact.size) return done(new Error('size-mismatch'));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), check, createWriteStream(partial));
  } catch (error) {
    await rm(partial, { force: true });
    if (messageOf(error) === 'size-mismatch') return { ok: false, reason: 'size-mismatch', status: res.status };
    return { ok: false, reason: 'unreachable', error: messageOf(error) };
  }
  const sha256 = hash.digest('hex');
  if (received !== artifact.size) {
    await rm(partial, { force: true });
    return { ok: false, reason: 'size-mismatch', status: res.status };
  }
  if (sha256 !== artifact.sha256.toLowerCase()) {
    await rm(partial, { force: true });
    return { ok: false, reason: 'sha256-mismatch', status: res.status };
  }
  await rename(partial, path);
  return { ok: true, path, size: received, sha256 };
}
