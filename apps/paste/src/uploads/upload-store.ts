import { mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import express, { type RequestHandler, type Response } from 'express';
import type { Logger } from '@app/http';
import type { CheckedImage, ImageExtension } from './image-type.js';
import type { Queryable } from '@app/db';
import { deleteUpload, findUpload, insertUpload } from './uploads.repository.js';

/** Where uploaded files are kept, and how they are served back under /uploads/images. */
export interface UploadStore {
  put(name: string, image: CheckedImage): Promise<void>;
  /** Deletes a file this service wrote; a missing one is not an error. */
  remove(name: string): Promise<void>;
  serve: RequestHandler;
}

const contentTypes: Record<ImageExtension, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
};

const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

/**
 * `nosniff` makes browsers trust only our Content-Type; an SVG additionally gets a CSP that
 * allows no script and no outside resource, and a sandbox, in case someone opens it directly.
 */
function safetyHeaders(res: Response, name: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (name.endsWith('.svg')) res.setHeader('Content-Security-Policy', SVG_POLICY);
}

function servedFromFolder(dir: string): RequestHandler {
  return express.static(dir, {
    index: false,
    dotfiles: 'deny',
    fallthrough: true,
    maxAge: '30d',
    immutable: true,
    setHeaders: (res, filePath) => safetyHeaders(res, filePath),
  });
}

/** Files in a folder: the embedded database's way, one machine with its data folder. */
export function folderUploadStore(dir: string, logger: Logger): UploadStore {
  return {
    async put(name, image) {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, name), image.data, { flag: 'wx' });
    },
    async remove(name) {
      await unlink(path.join(dir, name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') logger.warn({ err: error, file: name }, 'could not delete the replaced upload');
      });
    },
    serve: servedFromFolder(dir),
  };
}

const uploadName = /^\/((?:logo|favicon)-\d+-\d+\.(jpg|png|gif|svg|ico))$/;

/**
 * Rows in the database: on a database server no instance keeps anything in its data folder, and
 * every instance serves what another stored. A name not found there falls through to the folder
 * (read only), so files uploaded before the move to the database are still served.
 */
export function databaseUploadStore(db: Queryable, legacyDir: string): UploadStore {
  const legacy = servedFromFolder(legacyDir);
  return {
    put: (name, image) => insertUpload(db, name, contentTypes[image.ext], image.data),
    remove: (name) => deleteUpload(db, name),
    serve: (req, res, next) => {
      const match = req.method === 'GET' || req.method === 'HEAD' ? uploadName.exec(req.path) : null;
      if (!match) return next();
      findUpload(db, match[1]!).then((found) => {
        if (!found) return legacy(req, res, next);
        safetyHeaders(res, match[1]!);
        res.setHeader('Cache-Control', 'public, max-age=2592000, immutable');
        res.type(found.contentType).send(found.data);
      }, next);
    },
  };
}
