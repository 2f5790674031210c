import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { attachmentDisposition } from './content-disposition.js';
import { FileObjectStore } from './file-store.js';
import { assertValidKey, SizeMismatchError } from './object-store.js';
import { verifySignedQuery } from './url-signature.js';

/** The texts of the handler's refusals (answered as `{ success: false, error }`). */
export const FILE_STORE_ERRORS = {
  invalid: 'Invalid or altered link',
  expired: 'This link has expired',
  notFound: 'Not found',
  tooLarge: 'Upload larger than its declared size',
  tooSmall: 'Upload smaller than its declared size',
  method: 'Method not allowed',
} as const;

/**
 * Serves a FileObjectStore's presigned URLs (mount it where the store's `publicUrl` points):
 * `PUT` streams the body to the object (exactly the signed size, cut off at the first byte over),
 * `GET`/`HEAD` stream it with Content-Length, Range and Content-Disposition. An altered, lapsed
 * or unsigned URL gets 403 with a clear text. Objects are always answered as downloads
 * (octet-stream, attachment, sandboxed), never rendered on the service's origin.
 */
export function fileStoreHandler(store: FileObjectStore, options: { now?: () => Date } = {}): RequestHandler {
  const now = options.now ?? (() => new Date());
  return (req: Request, res: Response, next: NextFunction) => {
    const method = req.method === 'PUT' ? 'PUT' : req.method === 'GET' || req.method === 'HEAD' ? 'GET' : undefined;
    if (!method) {
      res.set('Allow', 'GET, HEAD, PUT');
      refuse(res, 405, FILE_STORE_ERRORS.method);
      return;
    }
    const key = keyOf(req.path);
    if (key === undefined) {
      refuse(res, 404, FILE_STORE_ERRORS.notFound);
      return;
    }
    const query = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.split('?')[1] : '');
    const verdict = verifySignedQuery(store.signingSecret, method, key, query, now().getTime() / 1000);
    if (!verdict.ok) {
      refuse(res, 403, FILE_STORE_ERRORS[verdict.reason]);
      return;
    }
    if (method === 'PUT') receive(store, key, verdict.request.size!, req, res).catch(next);
    else send(store, key, verdict.request.fileName, res);
  };
}

function keyOf(requestPath: string): string | undefined {
  try {
    const key = decodeURIComponent(requestPath.slice(1));
    assertValidKey(key);
    return key;
  } catch {
    return undefined;
  }
}

async function receive(store: FileObjectStore, key: string, size: number, req: Request, res: Response) {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) !== size) {
    // Refused before a byte is read: the client learns at once, and the connection is not reused.
    res.set('Connection', 'close');
    refuse(
      res,
      Number(declared) > size ? 413 : 400,
      Number(declared) > size ? FILE_STORE_ERRORS.tooLarge : FILE_STORE_ERRORS.tooSmall,
    );
    return;
  }
  try {
    await store.write(key, req, size);
  } catch (error) {
    if (!(error instanceof SizeMismatchError)) {
      if (req.destroyed || req.readableAborted) return; // the client went away: nothing to answer
      throw error;
    }
    res.set('Connection', 'close');
    refuse(
      res,
      error.received === 'more' ? 413 : 400,
      error.received === 'more' ? FILE_STORE_ERRORS.tooLarge : FILE_STORE_ERRORS.tooSmall,
    );
    return;
  }
  res.status(200).json({ success: true });
}

function send(store: FileObjectStore, key: string, fileName: string | undefined, res: Response) {
  res.sendFile(
    key,
    {
      // Relative to the store's folder: `send` checks the key alone for dot segments, so a data
      // folder under a dot folder (~/.local/…) still serves.
      root: store.root,
      dotfiles: 'deny',
      cacheControl: false,
      etag: true,
      lastModified: true,
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': attachmentDisposition(fileName),
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
      },
    },
    (error?: Error & { status?: number }) => {
      if (!error) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      refuse(
        res,
        error.status === 404 ? 404 : 500,
        error.status === 404 ? FILE_STORE_ERRORS.notFound : 'Cannot read the object',
      );
    },
  );
}

function refuse(res: Response, status: number, error: string) {
  res.status(status).json({ success: false, error });
}
