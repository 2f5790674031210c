import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

/**
 * Applies the versioned migrations of one app (drizzle-kit output) that are not yet applied.
 * `service` names the history table (`__migrations_<service>`), so both services can share one
 * database (a lone DATABASE_URL) without reading each other's history.
 */
export async function runMigrations(db: NodePgDatabase, migrationsFolder: string, service?: string): Promise<void> {
  const migrationsTable = service ? `__migrations_${service}` : '__migrations';
  await migrate(db, { migrationsFolder, migrationsSchema: 'public', migrationsTable });
}
