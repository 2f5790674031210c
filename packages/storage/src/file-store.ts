import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, opendir, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { attachmentDisposition } from './content-disposition.js';
import { ExactSize, nodeReadable } from './exact-size.js';
import {
  assertValidKey,
  assertValidSize,
  lifetimeOf,
  ObjectNotFoundError,
  type DownloadUrlOptions,
  type ObjectInfo,
  type ObjectStore,
  type PresignedRequest,
  type UploadUrlOptions,
} from './object-store.js';
import { signedQuery } from './url-signature.js';

export interface FileStoreOptions {
  /** The folder of the objects (made when missing). */
  root: string;
  /**
   * Where `fileStoreHandler(store)` is mounted, as clients reach it: an absolute URL
   * (`https://paste.example/objects`) or a path (`/objects`) the caller makes absolute.
   */
  publicUrl: string;
  /** Signs the URLs; every instance serving the same folder needs the same one. */
  signingSecret: string | Uint8Array;
  /** The clock URLs are signed with (tests make lapsed URLs with one set back). */
  now?: () => Date;
}

// Uploads are written here first and renamed into place when complete, so a reader never sees
// half an object. A dot folder: no key can name it (segments start with a letter or digit).
const INCOMING = '.incoming';

/** The embedded default: objects as files under one folder, presigned URLs served by the service itself. */
export class FileObjectStore implements ObjectStore {
  readonly kind = 'file';
  readonly root: string;
  readonly signingSecret: string | Uint8Array;
  private readonly publicUrl: string;
  private readonly now: () => Date;

  constructor(options: FileStoreOptions) {
    this.root = path.resolve(options.root);
    this.publicUrl = options.publicUrl.replace(/\/+$/, '');
    this.signingSecret = options.signingSecret;
    this.now = options.now ?? (() => new Date());
  }

  /** The file of `key`, after checking the key (so never outside `root`). */
  pathOf(key: string): string {
    assertValidKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  // async, like the S3 store's: a bad key or size is a rejected promise on both.
  // eslint-disable-next-line @typescript-eslint/require-await
  async uploadUrl(key: string, options: UploadUrlOptions): Promise<PresignedRequest> {
    assertValidKey(key);
    assertValidSize(options.size);
    return this.sign('PUT', key, lifetimeOf(options.expiresInSeconds), { size: options.size });
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async downloadUrl(key: string, options: DownloadUrlOptions = {}): Promise<PresignedRequest> {
    assertValidKey(key);
    attachmentDisposition(options.fileName); // refuses a name no header can carry, before signing it
    return this.sign('GET', key, lifetimeOf(options.expiresInSeconds), { fileName: options.fileName });
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const found = await stat(this.pathOf(key));
      return found.isFile() ? { key, size: found.size, lastModified: found.mtime } : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await unlink(file);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    await this.removeEmptyFolders(path.dirname(file));
  }

  async *list(prefix = ''): AsyncIterable<ObjectInfo> {
    // Walk only the folder the prefix names in full, then filter by the rest of it.
    const folderKey = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    if (folderKey !== '') {
      try {
        assertValidKey(folderKey);
      } catch {
        return; // no object has such a key
      }
    }
    yield* this.walk(folderKey, prefix);
  }

  async put(key: string, body: Readable | ReadableStream<Uint8Array>, options: { size: number }): Promise<void> {
    assertValidSize(options.size);
    const source = nodeReadable(body);
    try {
      await this.write(key, source, options.size);
    } catch (error) {
      source.destroy();
      throw error;
    }
  }

  async get(key: string, options: { range?: { start: number; end?: number } } = {}): Promise<Readable> {
    const file = this.pathOf(key);
    const found = await this.head(key);
    if (!found) throw new ObjectNotFoundError(key);
    return createReadStream(file, options.range ? { start: options.range.start, end: options.range.end } : {});
  }

  /**
   * Streams exactly `size` bytes of `source` into the object `key` (the HTTP handler's PUT and
   * `put`): to a file of its own in the incoming folder, renamed into place when whole. Fails with
   * SizeMismatchError as soon as the count goes over, or at the end when short, keeping nothing.
   */
  async write(key: string, source: Readable, size: number): Promise<void> {
    const file = this.pathOf(key);
    const incoming = path.join(this.root, INCOMING);
    await mkdir(incoming, { recursive: true });
    const temporary = path.join(incoming, randomUUID());
    try {
      // Piped by hand rather than through pipeline(), which would destroy the source on a refusal:
      // the HTTP handler still answers on the request's connection then.
      const counted = new ExactSize(size);
      const forwardFailure = (error?: Error) => counted.destroy(error ?? new Error('The upload was cut off'));
      source.once('error', forwardFailure);
      source.once('close', () => {
        if (!source.readableEnded) forwardFailure();
      });
      source.pipe(counted);
      try {
        await pipeline(counted, createWriteStream(temporary, { flags: 'wx' }));
      } finally {
        source.unpipe(counted);
        source.off('error', forwardFailure);
      }
      await this.moveIntoPlace(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  private sign(
    method: 'PUT' | 'GET',
    key: string,
    lifetime: number,
    extra: { size?: number; fileName?: string },
  ): PresignedRequest {
    const expiresAt = new Date((Math.floor(this.now().getTime() / 1000) + lifetime) * 1000);
    const query = signedQuery(this.signingSecret, { method, key, expires: expiresAt.getTime() / 1000, ...extra });
    return { url: `${this.publicUrl}/${key}?${query}`, method, headers: {}, expiresAt };
  }

  // A delete of the same folder's last object may remove the folder between mkdir and rename:
  // then make it again.
  private async moveIntoPlace(temporary: string, file: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      await mkdir(path.dirname(file), { recursive: true });
      try {
        await rename(temporary, file);
        return;
      } catch (error) {
        if (!isMissing(error) || attempt === 3) throw error;
      }
    }
  }

  private async removeEmptyFolders(folder: string): Promise<void> {
    while (folder.startsWith(this.root + path.sep)) {
      try {
        await rmdir(folder);
      } catch {
        return; // not empty (or gone): folders above it are not empty either
      }
      folder = path.dirname(folder);
    }
  }

  private async *walk(folderKey: string, prefix: string): AsyncIterable<ObjectInfo> {
    const folder = folderKey === '' ? this.root : path.join(this.root, ...folderKey.split('/'));
    let entries;
    try {
      entries = await opendir(folder);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw error;
    }
    for await (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const key = folderKey === '' ? entry.name : `${folderKey}/${entry.name}`;
      if (entry.isDirectory()) {
        // Only folders whose keys can still start with the prefix.
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* this.walk(key, prefix);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        const found = await stat(path.join(folder, entry.name)).catch(() => undefined);
        if (found) yield { key, size: found.size, lastModified: found.mtime };
      }
    }
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}
