import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

/** Applies the versioned migrations of one app (drizzle-kit output) that are not yet applied. */
export async function runMigrations(db: NodePgDatabase, migrationsFolder: string): Promise<void> {
  await migrate(db, { migrationsFolder, migrationsSchema: 'public', migrationsTable: '__migrations' });
}
