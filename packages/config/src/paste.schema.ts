import { z } from 'zod';
import { envPort, envUrl, optionalString } from './env-types.js';

export const pasteSchema = {
  PASTE_PORT: envPort(8080),
  PASTE_PUBLIC_URL: envUrl(),
  PASTE_DATABASE_URL: envUrl(),
  OWNER_ID: optionalString(),
  PASTE_UPLOAD_DIR: z.string().optional(),
};
