import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { FileObjectStore } from './file-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-store.js';

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

export type StorageVariables = z.infer<z.ZodObject<typeof storageSchema>>;

/** Which store the variables choose, with its settings. */
export type StorageSettings =
  | { driver: 'file'; root: string }
  | {
      driver: 's3';
      bucket: string;
      prefix?: string;
      endpoint?: string;
      region: string;
      credentials?: { accessKeyId: string; secretAccessKey: string };
      forcePathStyle: boolean;
    };

/** Reads validated variables (`storageSchema`) into settings; throws on a half-given key pair. */
export function storageSettingsOf(variables: StorageVariables & { DATA_DIR: string }): StorageSettings {
  const url = variables.STORAGE_URL;
  if (url === undefined || url.startsWith('file:')) {
    return { driver: 'file', root: url ? fileURLToPath(url) : path.resolve(variables.DATA_DIR, 'objects') };
  }
  const { hostname: bucket, pathname } = new URL(url);
  const prefix = decodeURIComponent(pathname).replace(/^\/+|\/+$/g, '');
  if (Boolean(variables.AWS_ACCESS_KEY_ID) !== Boolean(variables.AWS_SECRET_ACCESS_KEY)) {
    throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: give both or neither');
  }
  return {
    driver: 's3',
    bucket,
    prefix: prefix || undefined,
    endpoint: variables.AWS_ENDPOINT_URL_S3,
    // Self-hosted stores ignore the region, but SigV4 needs one.
    region: variables.AWS_REGION ?? 'us-east-1',
    credentials:
      variables.AWS_ACCESS_KEY_ID && variables.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: variables.AWS_ACCESS_KEY_ID, secretAccessKey: variables.AWS_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: variables.S3_FORCE_PATH_STYLE,
  };
}

/**
 * The store the settings choose. The filesystem store also needs where its handler is mounted
 * (`publicUrl`) and a secret to sign its URLs with; the S3 store ignores both.
 */
export function createObjectStore(
  settings: StorageSettings,
  fileStore: { publicUrl: string; signingSecret: string | Uint8Array },
): ObjectStore {
  return settings.driver === 'file'
    ? new FileObjectStore({ root: settings.root, ...fileStore })
    : new S3ObjectStore(settings);
}

/** Where the objects are, for the start-up log (never a credential). */
export function describeStorage(settings: StorageSettings): string {
  return settings.driver === 'file'
    ? `objects in ${settings.root}`
    : `objects in S3 bucket ${settings.bucket}${settings.prefix ? `/${settings.prefix}` : ''}${settings.endpoint ? ` at ${settings.endpoint}` : ''}`;
}
