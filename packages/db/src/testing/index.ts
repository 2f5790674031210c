export { createTestDatabase, testDatabaseBackend } from './test-database.js';
