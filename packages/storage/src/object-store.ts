import type { Readable } from 'node:stream';

/**
 * Where paste attachments and release artifacts keep their bytes: one interface, two stores (the
 * filesystem for one box, any S3-compatible store for more). Clients move the bytes themselves by
 * presigned URLs, so the service never carries them; `put` and `get` are for the service's own use
 * (sweeps, benchmarks, tests). Everything streams: no call holds a whole object in memory.
 *
 * Keys are `/`-separated segments of letters, digits, `.`, `_` and `-`, each starting with a
 * letter or digit (see `assertValidKey`): the same keys work on both stores, and none can leave
 * the filesystem store's folder.
 */
export interface ObjectStore {
  /** 'file' or 's3', for start-up logs and health answers. */
  readonly kind: 'file' | 's3';

  /**
   * A URL a client sends the object's bytes to with `PUT`, exactly `size` bytes (the store refuses
   * any other length: S3 by the signed Content-Length, the filesystem store while streaming).
   * Lapses after `expiresInSeconds` (default 10 minutes). An existing object is replaced.
   */
  uploadUrl(key: string, options: UploadUrlOptions): Promise<PresignedRequest>;

  /**
   * A URL that answers the object to `GET` (with Range), lapsing after `expiresInSeconds`
   * (default 10 minutes); `fileName` makes the answer `Content-Disposition: attachment` under it.
   */
  downloadUrl(key: string, options?: DownloadUrlOptions): Promise<PresignedRequest>;

  /** The object's size and last change, or undefined when there is none. */
  head(key: string): Promise<ObjectInfo | undefined>;

  /** Removes the object; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;

  /** Every object whose key starts with `prefix` (any string, '' for all), in no promised order. */
  list(prefix?: string): AsyncIterable<ObjectInfo>;

  /** Stores exactly `size` bytes read from `body`; a body of another length is refused (SizeMismatchError). */
  put(key: string, body: Readable | ReadableStream<Uint8Array>, options: { size: number }): Promise<void>;

  /** The object's bytes (or those of `range`, both ends included); ObjectNotFoundError when there is none. */
  get(key: string, options?: { range?: { start: number; end?: number } }): Promise<Readable>;
}

export interface UploadUrlOptions {
  /** The exact number of bytes the client will send. */
  size: number;
  /** Default 600 (10 minutes). */
  expiresInSeconds?: number;
}

export interface DownloadUrlOptions {
  /** Default 600 (10 minutes). */
  expiresInSeconds?: number;
  /** The name the browser saves the file under (Content-Disposition: attachment). */
  fileName?: string;
}

/** A presigned request: the client sends `method` to `url` with `headers`, until `expiresAt`. */
export interface PresignedRequest {
  url: string;
  method: 'PUT' | 'GET';
  /** Headers the client must send as they are (none today; kept so that a store can ask for some). */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface ObjectInfo {
  key: string;
  size: number;
  lastModified: Date;
}

export const DEFAULT_URL_LIFETIME_SECONDS = 600;

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No object ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class SizeMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number | 'more',
  ) {
    super(`Expected ${expected} bytes, received ${received === 'more' ? 'more' : received}`);
    this.name = 'SizeMismatchError';
  }
}

export class InvalidKeyError extends Error {
  constructor(readonly key: string) {
    super(`Invalid object key: ${JSON.stringify(key).slice(0, 200)}`);
    this.name = 'InvalidKeyError';
  }
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws InvalidKeyError unless `key` is 1–1024 characters of valid segments (so no `..`, no leading `/`). */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1024) throw new InvalidKeyError(String(key));
  for (const segment of key.split('/')) if (!SEGMENT.test(segment)) throw new InvalidKeyError(key);
}

/** Checks a size given to `uploadUrl` or `put`: a whole number of bytes, at most 5 GiB (S3's single PUT). */
export function assertValidSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0 || size > MAX_OBJECT_BYTES) {
    throw new RangeError(`Invalid object size: ${size}`);
  }
}

/** S3's largest single PUT, 5 GiB: the most one presigned upload can carry. */
export const MAX_OBJECT_BYTES = 5 * 1024 ** 3;

export function lifetimeOf(expiresInSeconds: number | undefined): number {
  const seconds = expiresInSeconds ?? DEFAULT_URL_LIFETIME_SECONDS;
  // SigV4 presigned URLs live at most 7 days.
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 7 * 24 * 3600) {
    throw new RangeError(`Invalid URL lifetime: ${seconds}`);
  }
  return seconds;
}
