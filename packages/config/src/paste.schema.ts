import { z } from 'zod';
import { storageSchema } from '@app/storage/schema';
import { envInt, envPoolMode, envPort, envUrl, optionalString } from './env-types.js';

export const pasteSchema = {
  PASTE_PORT: envPort(8080),
  PASTE_PUBLIC_URL: envUrl(),
  PASTE_DATABASE_URL: envUrl(),
  /** The paste service's replica of PASTE_DATABASE_URL (over DATABASE_REPLICA_URL). */
  PASTE_DATABASE_REPLICA_URL: envUrl(),
  /** The paste service's direct URL for migrations (over DATABASE_MIGRATION_URL). */
  PASTE_DATABASE_MIGRATION_URL: envUrl(),
  /** How PASTE_DATABASE_URL reaches PostgreSQL (over DATABASE_POOL_MODE). */
  PASTE_DATABASE_POOL_MODE: envPoolMode(),
  OWNER_ID: optionalString(),
  /** Folder of uploaded logos and favicons; default DATA_DIR/paste-uploads/images. */
  PASTE_UPLOAD_DIR: z.string().optional(),
  /** How long an owner's (or a visitor's unlocked-paste) session lasts. */
  PASTE_SESSION_TTL_HOURS: envInt(24 * 7, 1, 24 * 365),
  /**
   * Where paste attachments keep their bytes (decisions.md wave 4, "Storage"): STORAGE_URL
   * (`file:///path`, default DATA_DIR/objects, or `s3://BUCKET[/prefix]`) and the AWS SDK's variables.
   */
  ...storageSchema,
};
