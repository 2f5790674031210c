import type { z } from 'zod';

/**
 * Rows of a hand-written query, checked against a zod row schema instead of asserted with
 * `db.query<T>`: a column renamed or typed differently fails here, at the query, with its name.
 * For reads off the hot path (license validation asserts its rows for speed).
 */
export function parseRows<Schema extends z.ZodType>(schema: Schema, rows: unknown[]): Array<z.infer<Schema>> {
  return rows.map((row) => schema.parse(row));
}

/** The single row of an aggregate query (`count(*)` answers one), checked. */
export function parseRow<Schema extends z.ZodType>(schema: Schema, rows: unknown[]): z.infer<Schema> {
  return schema.parse(rows[0]);
}
