import { mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { appError } from '../common/error-codes.js';
import type { SettingsStore } from '@app/settings';
import type { Logger } from '@app/http';
import type { PasteSettings } from '../settings/settings.schema.js';
import { checkImage } from './image-type.js';

export type BrandingKind = 'logo' | 'favicon';

export const UPLOAD_URL_PREFIX = '/uploads/images/';
/** Only files this service wrote match; anything else (the defaults) is never deleted. */
const uploadedFile = /^\/uploads\/images\/((?:logo|favicon)-\d+-\d+\.(?:jpg|png|gif|svg|ico))$/;

export interface UploadServiceDeps {
  dir: string;
  settings: SettingsStore<PasteSettings>;
  now: () => Date;
  randomInt: (maxExclusive: number) => number;
  logger: Logger;
}

export function createUploadService(deps: UploadServiceDeps) {
  const settingKey = (kind: BrandingKind): 'logo' | 'favIcon' => (kind === 'logo' ? 'logo' : 'favIcon');

  return {
    /** Stores a logo or favicon, points the setting at it, and deletes the file it replaces. */
    async store(kind: BrandingKind, file: { buffer: Buffer; originalname: string } | undefined): Promise<string> {
      if (!file) throw appError('PASTE_NO_FILE_UPLOADED', { message: `No file uploaded: send the file in the "${kind}" field` });
      const image = await checkImage(file.buffer, file.originalname);
      const name = `${kind}-${deps.now().getTime()}-${deps.randomInt(1_000_000_000)}.${image.ext}`;
      await mkdir(deps.dir, { recursive: true });
      await writeFile(path.join(deps.dir, name), image.data, { flag: 'wx' });

      const key = settingKey(kind);
      const previous = deps.settings.get()[key];
      const urlPath = `${UPLOAD_URL_PREFIX}${name}`;
      await deps.settings.update({ [key]: urlPath });
      const old = uploadedFile.exec(previous)?.[1];
      if (old && old !== name) {
        await unlink(path.join(deps.dir, old)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') deps.logger.warn({ err: error, file: old }, 'could not delete the replaced upload');
        });
      }
      return urlPath;
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
