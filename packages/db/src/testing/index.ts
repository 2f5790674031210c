export { createEmptyEmbeddedDatabase, createTestDatabase, testDatabaseBackend } from './test-database.js';
export {
  findTableReads,
  findTableWrites,
  sourceFiles,
  tableDefinitions,
  writersByTable,
  type TableRead,
  type TableWrite,
} from './table-writes.js';
export {
  freePort,
  NO_POSTGRES_BINARIES,
  postgresBinaries,
  startStreamingPair,
  type StreamingPair,
} from './streaming-replica.js';
export {
  createPooledTestDatabase,
  NO_PGBOUNCER,
  pgbouncerBinary,
  pgbouncerVersion,
  startPgBouncer,
  type PgBouncer,
  type PooledTestDatabase,
} from './pgbouncer.js';
