import { appError } from '../common/error-codes.js';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import { checkImage } from './image-type.js';
import type { UploadStore } from './upload-store.js';

export type BrandingKind = 'logo' | 'favicon';

export const UPLOAD_URL_PREFIX = '/uploads/images/';
/** Only files this service wrote match; anything else (the defaults) is never deleted. */
const uploadedFile = /^\/uploads\/images\/((?:logo|favicon)-\d+-\d+\.(?:jpg|png|gif|svg|ico))$/;

export interface UploadServiceDeps {
  store: UploadStore;
  settings: SettingsStore<PasteSettings>;
  now: () => Date;
  randomInt: (maxExclusive: number) => number;
}

export function createUploadService(deps: UploadServiceDeps) {
  const settingKey = (kind: BrandingKind): 'logo' | 'favIcon' => (kind === 'logo' ? 'logo' : 'favIcon');

  return {
    /** Stores a logo or favicon, points the setting at it, and deletes the file it replaces. */
    async store(kind: BrandingKind, file: { buffer: Buffer; originalname: string } | undefined): Promise<string> {
      if (!file)
        throw appError('PASTE_NO_FILE_UPLOADED', { message: `No file uploaded: send the file in the "${kind}" field` });
      const image = await checkImage(file.buffer, file.originalname);
      const name = `${kind}-${deps.now().getTime()}-${deps.randomInt(1_000_000_000)}.${image.ext}`;
      await deps.store.put(name, image);

      const key = settingKey(kind);
      const previous = deps.settings.get()[key];
      const urlPath = `${UPLOAD_URL_PREFIX}${name}`;
      await deps.settings.update({ [key]: urlPath });
      const old = uploadedFile.exec(previous)?.[1];
      if (old && old !== name) await deps.store.remove(old);
      return urlPath;
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
