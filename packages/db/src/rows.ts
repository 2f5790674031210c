import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';
import { z } from 'zod';

/**
 * A row of `table` as a plain SQL query answers it (`SELECT * FROM ...` through pg): the column
 * names of the database (`product_id`), the types of the Drizzle schema. Repositories that write
 * their SQL by hand type their rows with this instead of an interface kept in step by hand.
 */
export type RowOf<T extends Table> = InferSelectModel<T, { dbColumnNames: true }>;

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

/** The zod type of a column as node-postgres answers it here (int8 and numeric parsed to numbers by @app/db). */
function columnSchema(column: { columnType: string; dataType: string }): z.ZodType {
  switch (column.columnType) {
    case 'PgUUID':
    case 'PgText':
    case 'PgVarchar':
      return z.string();
    case 'PgInteger':
    case 'PgSmallInt':
    case 'PgBigInt53':
    case 'PgBigSerial53':
    case 'PgSerial':
    case 'PgNumeric':
    case 'PgReal':
    case 'PgDoublePrecision':
      return z.number();
    case 'PgBoolean':
      return z.boolean();
    case 'PgTimestamp':
      return z.date();
    case 'PgArray':
      return z.array(z.unknown());
    default:
      return z.unknown();
  }
}

/**
 * The zod schema of a row of `table` as `SELECT *` answers it (the database's column names,
 * null where the column allows it), made from the Drizzle table so it cannot drift from it.
 * `extend` it with the columns a query adds (joined names, counts).
 */
export function rowSchema<T extends Table>(table: T, extra: Record<string, z.ZodType> = {}) {
  const shape: Record<string, z.ZodType> = {};
  for (const column of Object.values(getTableColumns(table))) {
    const schema = columnSchema(column);
    shape[column.name] = column.notNull ? schema : schema.nullable();
  }
  // Loose: a query's own extra columns (a cursor) pass through unchecked rather than vanish.
  return z.looseObject({ ...shape, ...extra });
}

/**
 * A parser of `table`'s rows (plus the `extra` columns a query adds), typed as the Drizzle table
 * infers them: the check and the type come from the same definition.
 */
export function tableRows<T extends Table, Extra = object>(table: T, extra: Record<string, z.ZodType> = {}) {
  const schema = rowSchema(table, extra);
  return (rows: unknown[]) => rows.map((row) => schema.parse(row) as RowOf<T> & Extra);
}
