import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { storageSchema } from './storage.schema.js';
import { FileObjectStore } from './file-store.js';
import type { ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-store.js';

export { storageSchema } from './storage.schema.js';

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
