export { openDatabase, type Database, type OpenDatabaseOptions } from './open-database.js';
export { runMigrations } from './migrate.js';
export { withTransaction, type Queryable } from './transaction.js';
export { batchConcurrency, createBatcher, type BatcherOptions } from './batcher.js';
export { DataFolderInUseError } from './data-folder-lock.js';
export { retryTransient, isReadOnlyStatement } from './retry.js';
export { transientKind, isTransientDatabaseError, uniqueViolation, type TransientKind } from './database-errors.js';
export type { RowOf } from './rows.js';
export { keysetCursor, type KeysetCursor } from './keyset-cursor.js';
