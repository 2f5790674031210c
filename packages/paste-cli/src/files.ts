// Attachments from the command line: files streamed to and from the store's presigned URLs,
// encrypted in chunks on the way up and decrypted on the way down (file-stream.js) for an
// encrypted paste. Nothing holds a whole file: memory stays at a few chunks whatever the size.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DecryptError } from './envelope.js';
import { decryptFileStream, encryptedFileSize, encryptFileStream } from './file-stream.js';
import { CommandError, UsageError } from './options.js';

/** A file to attach: where it is, its name as the reader will see it, and its size. */
export interface LocalFile {
  path: string;
  name: string;
  size: number;
}

/** Checks each `--attach` file (a regular file that can be read) and measures it. */
export async function localFiles(paths: string[]): Promise<LocalFile[]> {
  if (paths.length > 10) throw new UsageError('A paste carries at most 10 files');
  return Promise.all(
    paths.map(async (file) => {
      let size: number;
      try {
        const found = await stat(file);
        if (!found.isFile()) throw new Error('not a regular file');
        size = found.size;
      } catch (error) {
        throw new UsageError(`Cannot attach ${file}: ${(error as Error).message}`);
      }
      return { path: file, name: path.basename(file), size };
    }),
  );
}

/** The bytes the store will receive for `file`: encrypted ones are a little longer. */
export const uploadSize = (file: LocalFile, encrypted: boolean) =>
  encrypted ? encryptedFileSize(file.size) : file.size;

/** Counts the bytes going by, for the progress line. */
function counter(onBytes: (bytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      onBytes(chunk.length);
      callback(null, chunk);
    },
  });
}

/**
 * Sends `file` to its upload URL with `PUT`, exactly `size` bytes (Content-Length: S3 signs it),
 * through the file format's encryption when `keyMaterial` is given.
 */
export async function uploadFile(
  url: string,
  file: LocalFile,
  keyMaterial: Uint8Array | undefined,
  onBytes: (bytes: number) => void = () => {},
): Promise<void> {
  const size = uploadSize(file, keyMaterial !== undefined);
  const plain = createReadStream(file.path, { highWaterMark: 1024 * 1024 });
  const body =
    keyMaterial === undefined
      ? plain
      : Readable.fromWeb(
          (Readable.toWeb(plain) as unknown as ReadableStream<Uint8Array>).pipeThrough(
            encryptFileStream(keyMaterial),
          ) as WebReadableStream<Uint8Array>,
        );
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  await new Promise<void>((resolve, reject) => {
    const request = client.request(
      target,
      { method: 'PUT', headers: { 'Content-Length': String(size), 'Content-Type': 'application/octet-stream' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < 2000) text += chunk;
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new CommandError(`Uploading ${file.name} failed (${status}): ${errorText(text)}`));
        });
      },
    );
    request.on('error', (error) => reject(new CommandError(`Uploading ${file.name} failed: ${error.message}`)));
    pipeline(body, counter(onBytes), request).catch(reject);
  });
}

/** The error text of a store's refusal: JSON `error`, S3's XML `Message`, or the text as it came. */
function errorText(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON.
  }
  return /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text.trim().slice(0, 200);
}

/**
 * A name to save a downloaded file under in the output folder: the last segment of the name
 * the paste gives, without control characters; `file-N` when nothing usable is left.
 */
export function safeFileName(name: string | undefined, index: number): string {
  const cleaned = (name ?? '')
    .split('')
    .filter((c) => c.charCodeAt(0) >= 32 && c !== '\u007f')
    .join('')
    .split(/[\\/]/)
    .at(-1)!
    .trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? `file-${index + 1}` : cleaned;
}

/**
 * Downloads `url` into `target` (never over an existing file), decrypting with `keyMaterial`
 * when given; a damaged or wrongly keyed file is removed and reported. Answers the bytes written.
 */
export async function downloadFile(
  fetcher: typeof fetch,
  url: string,
  target: string,
  keyMaterial: Uint8Array | undefined,
): Promise<number> {
  const response = await fetcher(url);
  if (!response.ok || !response.body) {
    throw new CommandError(
      `Downloading ${path.basename(target)} failed (${response.status}): ${errorText(await response.text())}`,
    );
  }
  const source = keyMaterial === undefined ? response.body : response.body.pipeThrough(decryptFileStream(keyMaterial));
  let written = 0;
  const output = createWriteStream(target, { flags: 'wx' });
  try {
    await new Promise<void>((resolve, reject) => {
      output.once('open', () => resolve());
      output.once('error', reject);
    });
  } catch (error) {
    throw new CommandError(`Cannot write ${target}: ${(error as Error).message}`);
  }
  try {
    await pipeline(
      Readable.fromWeb(source as unknown as WebReadableStream<Uint8Array>),
      counter((bytes) => {
        written += bytes;
      }),
      output,
    );
  } catch (error) {
    await rm(target, { force: true });
    if (error instanceof DecryptError) throw new CommandError(`${path.basename(target)}: ${error.message}`);
    throw new CommandError(`Downloading ${path.basename(target)} failed: ${(error as Error).message}`);
  }
  return written;
}
