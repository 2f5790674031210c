import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** A static file as sent: read, compressed (brotli, gzip) and hashed once. */
export interface CompressedFile {
  type: string;
  raw: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
}

/**
 * Reads and compresses a file off the main thread (zlib's pool). Brotli at quality 5: nearly the
 * size of 11 at a twentieth of the time, which the first request for the file waits for.
 */
export async function compressFile(path: string, type: string): Promise<CompressedFile> {
  const raw = await readFile(path);
  const [br, gz] = await Promise.all([
    brotli(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    gzipped(raw, { level: 6 }),
  ]);
  const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
  return { type, raw, gzip: gz, br, etag };
}

/**
 * Sends a prepared file: 304 when the client's copy is current, else brotli or gzip when the
 * client takes them, with the ETag and `no-cache` (reuse after asking).
 */
export function sendCompressed(req: Request, res: Response, file: CompressedFile): void {
  res.set({ ETag: file.etag, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' });
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  // Brotli whenever the client takes it (browsers list it last: `gzip, deflate, br`).
  const encoding = req.acceptsEncodings('br') === 'br' ? 'br' : req.acceptsEncodings('gzip', 'identity');
  const body = encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : file.raw;
  if (encoding === 'br' || encoding === 'gzip') res.set('Content-Encoding', encoding);
  res.status(200).type(file.type).send(body);
}

/**
 * Serves `files` (request path → file on disk, content type), compressed at the first request
 * for any of them and kept in memory; other paths, and any file that cannot be read, go on to
 * `next` (the plain static files).
 */
export function compressedFiles(files: () => Record<string, { path: string; type: string }>): RequestHandler {
  let prepared: Promise<Map<string, CompressedFile>> | undefined;
  let paths: Set<string> | undefined;
  const prepare = async () => {
    const entries = await Promise.all(
      Object.entries(files()).map(async ([at, { path, type }]) => [at, await compressFile(path, type)] as const),
    );
    return new Map(entries);
  };
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    paths ??= new Set(Object.keys(files()));
    if (!paths.has(req.path)) return next();
    prepared ??= prepare();
    prepared.then(
      (ready) => {
        const file = ready.get(req.path);
        if (file) sendCompressed(req, res, file);
        else next();
      },
      () => {
        // Served uncompressed by the static files from now on.
        paths = new Set();
        next();
      },
    );
  };
}
