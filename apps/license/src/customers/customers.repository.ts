import { parseRow, parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import type { CustomerRecord } from '../common/request.js';
import { customers } from './customers.table.js';
import type { CreateCustomer, ListCustomers, UpdateCustomer } from './customers.schema.js';
import { z } from 'zod';

/** A customer, with the number of their licenses where the query counts them. */
export type CustomerRow = RowOf<typeof customers> & { license_count?: number };

/** Rows of customers, checked. */
const customerRows = tableRows(customers);
const totalRow = z.object({ total: z.number() });
const choiceRow = z.object({ id: z.string(), name: z.string(), email: z.string() });

export async function listCustomers(db: Queryable, query: ListCustomers) {
  const search = query.search ? `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = 'WHERE ($1::text IS NULL OR c.name ILIKE $1 OR c.email ILIKE $1 OR c.user_id = $2)';
  const [page, total] = await Promise.all([
    db.query(`SELECT c.* FROM customers c ${where} ORDER BY c.created_at DESC, c.id LIMIT $3 OFFSET $4`, [
      search,
      query.search ?? null,
      query.limit,
      query.skip,
    ]),
    db.query(`SELECT count(*) AS total FROM customers c ${where}`, [search, query.search ?? null]),
  ]);
  return { rows: customerRows(page.rows), total: parseRow(totalRow, total.rows).total };
}

/** The newest customers, names and emails only: the choices of a select (no license counts to make). */
export async function listCustomerChoices(
  db: Queryable,
  limit: number,
): Promise<Array<{ id: string; name: string; email: string }>> {
  const { rows } = await db.query('SELECT id, name, email FROM customers ORDER BY created_at DESC, id LIMIT $1', [
    limit,
  ]);
  return parseRows(choiceRow, rows);
}

export async function findCustomer(db: Queryable, id: string): Promise<CustomerRow | undefined> {
  const { rows } = await db.query('SELECT c.* FROM customers c WHERE c.id = $1', [id]);
  return customerRows(rows)[0];
}

export async function findCustomerByUserId(db: Queryable, userId: string): Promise<CustomerRecord | undefined> {
  const { rows } = await db.query('SELECT * FROM customers WHERE user_id = $1', [userId]);
  const row = customerRows(rows)[0];
  return row && { id: row.id, name: row.name, email: row.email, userId: row.user_id };
}

export async function insertCustomer(db: Queryable, input: CreateCustomer): Promise<CustomerRow> {
  const { rows } = await db.query('INSERT INTO customers (name, email, user_id) VALUES ($1, $2, $3) RETURNING *', [
    input.name,
    input.email,
    input.userId ?? null,
  ]);
  return customerRows(rows)[0]!;
}

export async function updateCustomer(
  db: Queryable,
  id: string,
  input: UpdateCustomer,
): Promise<CustomerRow | undefined> {
  const { rows } = await db.query(
    `UPDATE customers c SET name = coalesce($2, name), email = coalesce($3, email),
       user_id = CASE WHEN $4::boolean THEN $5 ELSE user_id END, updated_at = now()
     WHERE id = $1 RETURNING *`,
    [id, input.name ?? null, input.email ?? null, input.userId !== undefined, input.userId ?? null],
  );
  return customerRows(rows)[0];
}

export async function deleteCustomer(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM customers WHERE id = $1', [id]);
}

export async function userIdTaken(db: Queryable, userId: string, exceptId?: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM customers WHERE user_id = $1 AND id IS DISTINCT FROM $2', [
    userId,
    exceptId ?? null,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Whether the customer exists (a license names its customer). */
export async function customerExists(db: Queryable, customerId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM customers WHERE id = $1', [customerId]);
  return (rowCount ?? 0) > 0;
}

export async function countCustomers(db: Queryable): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS total FROM customers');
  return parseRow(z.object({ total: z.number() }), rows).total;
}
