import type { InferSelectModel, Table } from 'drizzle-orm';

/**
 * A row of `table` as a plain SQL query answers it (`SELECT * FROM ...` through pg): the column
 * names of the database (`product_id`), the types of the Drizzle schema. Repositories that write
 * their SQL by hand type their rows with this instead of an interface kept in step by hand.
 */
export type RowOf<T extends Table> = InferSelectModel<T, { dbColumnNames: true }>;
