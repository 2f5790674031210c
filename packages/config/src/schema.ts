import { z } from 'zod';
import { sharedSchema } from './shared.schema.js';
import { pasteSchema } from './paste.schema.js';
import { licenseSchema } from './license.schema.js';

/** Every environment variable of both services. `.env.example` documents each one. */
export const configSchema = z.object({ ...sharedSchema, ...pasteSchema, ...licenseSchema });
