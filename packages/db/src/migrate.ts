import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

/**
 * The advisory lock every migration of this project takes: one key for the whole database, so
 * both services (sharing a lone DATABASE_URL) and several instances of one service migrate one
 * at a time. Advisory locks belong to a database, so other databases on the server are not held up.
 */
const migrationLockSql = "SELECT pg_advisory_lock(hashtext('paste-and-license migrations'))";
const migrationUnlockSql = "SELECT pg_advisory_unlock(hashtext('paste-and-license migrations'))";

/**
 * Applies the versioned migrations of one app (drizzle-kit output) that are not yet applied.
 * `service` names the history table (`__migrations_<service>`), so both services can share one
 * database (a lone DATABASE_URL) without reading each other's history.
 *
 * Two migrations at once would race (two `CREATE TABLE IF NOT EXISTS` of one name collide in
 * PostgreSQL's catalogue, and a migration that looks for the other service's tables must see
 * them finished), so it runs under an advisory lock held on one connection. Drizzle migrates on
 * that same connection: the embedded database has only one.
 */
export async function runMigrations(db: NodePgDatabase, migrationsFolder: string, service?: string): Promise<void> {
  const migrationsTable = service ? `__migrations_${service}` : '__migrations';
  const { $client } = db as NodePgDatabase & { $client: pg.Pool | pg.Client };
  const client = $client instanceof pg.Pool ? await $client.connect() : undefined;
  const connection = client ?? ($client as pg.Client);
  try {
    await connection.query(migrationLockSql);
  } catch (error) {
    client?.release(error as Error);
    throw error;
  }
  try {
    await migrate(drizzle(connection), { migrationsFolder, migrationsSchema: 'public', migrationsTable });
  } finally {
    // Drizzle rolls a failed migration back itself; the ROLLBACK (a no-op otherwise) makes sure
    // no transaction is left open to refuse the unlock. A connection that cannot unlock is ended
    // rather than reused: a server releases its locks with it.
    let broken: Error | undefined;
    await connection.query(`ROLLBACK; ${migrationUnlockSql}`).catch((error: Error) => {
      broken = error;
    });
    client?.release(broken);
  }
}
