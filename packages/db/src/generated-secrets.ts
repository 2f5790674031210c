import type pg from 'pg';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { parseRows } from './rows.js';

/**
 * A table of secrets a service made itself (its session secret), under the name the service
 * gives it (`paste_generated_secrets`, `license_generated_secrets`), so two services sharing one
 * database never share one. With a database server the secret lives here rather than in the data
 * folder: every instance of the service reads the same one.
 */
export function createGeneratedSecretsTable<Name extends string>(name: Name) {
  return pgTable(name, {
    name: text('name').primaryKey(),
    value: text('value').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  });
}

const secretRow = z.object({ value: z.string() });

/**
 * The secret stored under `name`, made by `generate` and stored when there is none. Instances
 * starting together each offer theirs; ON CONFLICT DO NOTHING keeps the first, and every
 * instance then reads that one, so they agree. `created` says whether this call's value won.
 */
export async function keepGeneratedSecret(
  pool: Pick<pg.Pool, 'query'>,
  table: string,
  name: string,
  generate: () => string,
): Promise<{ value: string; created: boolean }> {
  const offered = generate();
  const inserted = await pool.query(
    `INSERT INTO "${table}" (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
    [name, offered],
  );
  const { rows } = await pool.query(`SELECT value FROM "${table}" WHERE name = $1`, [name]);
  const value = parseRows(secretRow, rows)[0]?.value;
  if (!value) throw new Error(`the generated secret "${name}" could not be stored in ${table}`);
  return { value, created: inserted.rowCount === 1 };
}
