export { createEmptyEmbeddedDatabase, createTestDatabase, testDatabaseBackend } from './test-database.js';
export { findTableWrites, sourceFiles, tableDefinitions, writersByTable, type TableWrite } from './table-writes.js';
