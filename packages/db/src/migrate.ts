import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

/**
 * The advisory lock every migration of this project takes: one key for the whole database, so
 * both services (sharing a lone DATABASE_URL) and several instances of one service migrate one
 * at a time. Advisory locks belong to a database, so other databases on the server are not held up.
 *
 * It belongs to a transaction, not to the session: behind a pooler in transaction mode
 * (PgBouncer) a session's statements may each run on another server connection, so a session
 * lock could be taken on one and never let go, where a transaction keeps one server connection
 * from BEGIN to its end. Instances of older versions take the same key as a session lock
 * (pg_advisory_lock): the two kinds exclude each other, so a rolling upgrade migrates once.
 */
const migrationLockSql = "BEGIN; SELECT pg_advisory_xact_lock(hashtext('paste-and-license migrations'))";

/**
 * Applies the versioned migrations of one app (drizzle-kit output) that are not yet applied.
 * `service` names the history table (`__migrations_<service>`), so both services can share one
 * database (a lone DATABASE_URL) without reading each other's history. Pass the database's
 * `migrationDb` (a direct connection when DATABASE_MIGRATION_URL is set).
 *
 * Two migrations at once would race (two `CREATE TABLE IF NOT EXISTS` of one name collide in
 * PostgreSQL's catalogue, and a migration that looks for the other service's tables must see
 * them finished), so the whole migration is one transaction that first takes the lock. Drizzle
 * migrates on that same connection (the embedded database has only one): its own BEGIN finds
 * the transaction open (PostgreSQL warns and carries on), its COMMIT commits the migration with
 * the history table and lets the lock go, and its ROLLBACK after a failure undoes all of it.
 */
export async function runMigrations(db: NodePgDatabase, migrationsFolder: string, service?: string): Promise<void> {
  const migrationsTable = service ? `__migrations_${service}` : '__migrations';
  const { $client } = db as NodePgDatabase & { $client: pg.Pool | pg.Client };
  const client = $client instanceof pg.Pool ? await $client.connect() : undefined;
  const connection = client ?? ($client as pg.Client);
  let broken: Error | undefined;
  try {
    await connection.query(migrationLockSql);
    await migrate(drizzle(connection), { migrationsFolder, migrationsSchema: 'public', migrationsTable });
  } finally {
    // Nothing is left open after drizzle's COMMIT or ROLLBACK; this ends the transaction when
    // the lock or drizzle's first statements failed. A connection that cannot roll back is
    // ended rather than reused.
    await connection.query('ROLLBACK').catch((error: Error) => {
      broken = error;
    });
    client?.release(broken);
  }
}
