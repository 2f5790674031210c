import type { RequestHandler } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '@app/http';
import { appError } from '../common/error-codes.js';
import type { PasteGuards } from '../access/guards.js';
import { errorSchema, messageSchema } from '../common/responses.js';
import type { BrandingKind, UploadService } from './uploads.service.js';

const MAX_BYTES = 2 * 1024 * 1024;

/** multer in memory (the bytes are checked before anything is written), its errors as 400s. */
function singleFile(field: BrandingKind): RequestHandler {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_BYTES, files: 1, fields: 20 },
  }).single(field);
  return (req, res, next) => {
    upload(req, res, (error?: unknown) => {
      if (!error) return next();
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') return next(appError('PASTE_FILE_TOO_LARGE'));
        if (error.code === 'LIMIT_UNEXPECTED_FILE') {
          return next(
            appError('PASTE_UPLOAD_INVALID', {
              message: `Unexpected file field "${error.field ?? ''}": send the file in the "${field}" field`,
            }),
          );
        }
        return next(appError('PASTE_UPLOAD_INVALID', { message: error.message }));
      }
      next(appError('PASTE_UPLOAD_INVALID'));
    });
  };
}

// A computed key is typed as an index signature: the casts name the one key it is.
const uploaded = <K extends string>(pathKey: K) =>
  messageSchema.extend({ [pathKey]: z.string() } as Record<K, z.ZodString>);
const storedAt = <K extends string>(pathKey: K, path: string) => ({ [pathKey]: path }) as Record<K, string>;

export function uploadRoutes(deps: { service: UploadService; guards: PasteGuards }): AnyRoute[] {
  const kinds = [
    { kind: 'logo', pathKey: 'logoPath', message: 'Logo uploaded successfully' },
    { kind: 'favicon', pathKey: 'faviconPath', message: 'Favicon uploaded successfully' },
  ] as const;
  return kinds.map(({ kind, pathKey, message }) =>
    defineRoute({
      method: 'post',
      path: `/api/upload/${kind}`,
      summary: `Upload the site's ${kind}`,
      tags: ['owner'],
      description: `multipart/form-data with the file in the "${kind}" field (JPEG, PNG, GIF, SVG, ICO; 2 MB).`,
      // The CSRF header is checked before the body is read: no stranger's upload is buffered. The
      // guard runs first, then the file parser, then the handler.
      guard: { ...deps.guards.ownerWrite, middleware: [...deps.guards.ownerWrite.middleware, singleFile(kind)] },
      responses: {
        200: { description: 'Stored', schema: uploaded(pathKey) },
        400: { description: 'No file, too large, or not an image', schema: errorSchema },
        403: { description: 'Not the owner, or no CSRF token', schema: errorSchema },
      },
      handler: async ({ req }) => {
        const stored = await deps.service.store(kind, req.file);
        return { success: true, message, ...storedAt(pathKey, stored) };
      },
    }),
  );
}
