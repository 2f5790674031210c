import express, { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { HttpError } from '@app/http';
import type { Access } from '../shared/access.js';
import type { BrandingKind, UploadService } from './upload.service.js';

const MAX_BYTES = 2 * 1024 * 1024;

/** multer in memory (the bytes are checked before anything is written), its errors as 400s. */
function singleFile(field: BrandingKind): RequestHandler {
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_BYTES, files: 1, fields: 20 } }).single(field);
  return (req, res, next) => {
    upload(req, res, (error?: unknown) => {
      if (!error) return next();
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') return next(HttpError.badRequest('File too large (maximum 2 MB)'));
        if (error.code === 'LIMIT_UNEXPECTED_FILE') {
          return next(HttpError.badRequest(`Unexpected file field "${error.field ?? ''}": send the file in the "${field}" field`));
        }
        return next(HttpError.badRequest(error.message));
      }
      next(HttpError.badRequest('Malformed multipart body'));
    });
  };
}

export function uploadRoutes(deps: { service: UploadService; access: Access }): Router {
  const router = Router();
  const kinds = [
    { kind: 'logo', pathKey: 'logoPath', message: 'Logo uploaded successfully' },
    { kind: 'favicon', pathKey: 'faviconPath', message: 'Favicon uploaded successfully' },
  ] as const;
  for (const { kind, pathKey, message } of kinds) {
    // The CSRF header is checked before the body is read: no stranger's upload is buffered.
    router.post(`/api/upload/${kind}`, ...deps.access.ownerWrite, singleFile(kind), async (req, res) => {
      const stored = await deps.service.store(kind, req.file);
      res.json({ success: true, message, [pathKey]: stored });
    });
  }
  return router;
}

/**
 * Serves the uploaded files. `nosniff` makes browsers trust only our Content-Type; an SVG
 * additionally gets a CSP that allows no script and no outside resource, and a sandbox, in
 * case someone opens it directly.
 */
export function uploadedFiles(dir: string): RequestHandler {
  return express.static(dir, {
    index: false,
    dotfiles: 'deny',
    fallthrough: true,
    maxAge: '30d',
    immutable: true,
    setHeaders(res, filePath) {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (filePath.endsWith('.svg')) {
        res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
      }
    },
  });
}
