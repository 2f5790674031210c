import { z } from 'zod';

// The storage variables alone (zod only, no store): @app/config spreads them into the services'
// schema without bundling the AWS SDK into every app that loads the configuration.

const optional = () =>
  z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value));

/**
 * The storage variables (decisions.md, wave 4, "Storage"), to spread into an app's config
 * schema beside the others, so they are read and validated once with the rest:
 * - `STORAGE_URL`: `file:///path` (default: `objects/` in DATA_DIR) or `s3://BUCKET[/prefix]`;
 * - for S3, the AWS SDK's standard variables and `S3_FORCE_PATH_STYLE=true` for self-hosted stores.
 */
export const storageSchema = {
  STORAGE_URL: optional().refine(
    (value) =>
      value === undefined ||
      /^file:\/\/\/./.test(value) ||
      /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(value),
    'Must be file:///absolute/path or s3://bucket[/prefix]',
  ),
  AWS_ENDPOINT_URL_S3: z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  AWS_REGION: optional(),
  AWS_ACCESS_KEY_ID: optional(),
  AWS_SECRET_ACCESS_KEY: optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .default('false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes'),
};
