import { drizzle } from 'drizzle-orm/node-postgres';
import type { Queryable } from './transaction.js';

/**
 * Drizzle's typed query builder without a connection: statements are built from the table
 * definitions (column names and value encodings checked by the compiler) and run with `run` on
 * whatever client the repository was given (the pool, or a transaction's client).
 */
export const queryBuilder = drizzle.mock();

/** Runs a statement built with `queryBuilder` on `db`. */
export async function run(db: Queryable, statement: { toSQL(): { sql: string; params: unknown[] } }) {
  const { sql, params } = statement.toSQL();
  return db.query(sql, params);
}
