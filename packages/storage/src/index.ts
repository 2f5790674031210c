export {
  assertValidKey,
  DEFAULT_URL_LIFETIME_SECONDS,
  InvalidKeyError,
  MAX_OBJECT_BYTES,
  ObjectNotFoundError,
  SizeMismatchError,
  type DownloadUrlOptions,
  type ObjectInfo,
  type ObjectStore,
  type PresignedRequest,
  type UploadUrlOptions,
} from './object-store.js';
export { FileObjectStore, type FileStoreOptions } from './file-store.js';
export { fileStoreHandler, FILE_STORE_ERRORS } from './file-store-handler.js';
export {
  removePendingObjects,
  sweepOrphanObjects,
  type PendingRemovals,
  type RemovalWarning,
} from './object-removal.js';
export { S3ObjectStore, type S3StoreOptions } from './s3-store.js';
export {
  createObjectStore,
  describeStorage,
  storageSchema,
  storageSettingsOf,
  type StorageSettings,
  type StorageVariables,
} from './storage.config.js';
