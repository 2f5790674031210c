import { parseRow, parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { z } from 'zod';
import { products } from './products.table.js';
import type { CreateProduct, UpdateProduct } from './products.schema.js';

/** A product, with its license counts where the query counts them. */
export type ProductRow = RowOf<typeof products> & { license_count?: number; active_license_count?: number };

/** Rows of products, checked against the table's definition. */
const productRows = tableRows(products);

export async function listProducts(db: Queryable, options: { activeOnly: boolean }): Promise<ProductRow[]> {
  const { rows } = await db.query(
    `SELECT p.* FROM products p ${options.activeOnly ? 'WHERE p.is_active' : ''} ORDER BY p.created_at DESC, p.id`,
  );
  return productRows(rows);
}

/** A page of products, newest first, whose name contains `q` (any case), and the total. */
export async function searchProducts(db: Queryable, query: { q?: string; limit: number; skip: number }) {
  const pattern = query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = 'WHERE ($1::text IS NULL OR p.name ILIKE $1)';
  const [page, total] = await Promise.all([
    db.query(`SELECT p.* FROM products p ${where} ORDER BY p.created_at DESC, p.id LIMIT $2 OFFSET $3`, [
      pattern,
      query.limit,
      query.skip,
    ]),
    db.query(`SELECT count(*) AS total FROM products p ${where}`, [pattern]),
  ]);
  return { rows: productRows(page.rows), total: parseRow(z.object({ total: z.number() }), total.rows).total };
}

export async function findProduct(db: Queryable, id: string): Promise<ProductRow | undefined> {
  const { rows } = await db.query('SELECT p.* FROM products p WHERE p.id = $1', [id]);
  return productRows(rows)[0];
}

export async function insertProduct(db: Queryable, input: CreateProduct): Promise<ProductRow> {
  const { rows } = await db.query(
    `INSERT INTO products (name, description, is_active, license_prefix) VALUES ($1, $2, $3, $4) RETURNING *`,
    [input.name, input.description, input.isActive, input.licensePrefix],
  );
  return productRows(rows)[0]!;
}

export async function updateProduct(db: Queryable, id: string, input: UpdateProduct): Promise<ProductRow | undefined> {
  const { rows } = await db.query(
    `UPDATE products SET name = coalesce($2, name), description = coalesce($3, description),
       is_active = coalesce($4, is_active), license_prefix = coalesce($5, license_prefix), updated_at = now()
     WHERE id = $1 RETURNING *`,
    [id, input.name ?? null, input.description ?? null, input.isActive ?? null, input.licensePrefix ?? null],
  );
  return productRows(rows)[0];
}

export async function deleteProduct(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM products WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** What a new license needs of its product: the key prefix, and whether it takes licenses. */
const productForLicenseRow = z.object({ id: z.string(), license_prefix: z.string(), is_active: z.boolean() });

export async function findProductForLicense(db: Queryable, productId: string) {
  const { rows } = await db.query('SELECT id, license_prefix, is_active FROM products WHERE id = $1', [productId]);
  return parseRows(productForLicenseRow, rows)[0];
}

/** Every product's id, name, prefix and state, by name (for summaries). */
const productSummaryRow = z.object({ id: z.string(), name: z.string(), prefix: z.string(), active: z.boolean() });

export async function listProductSummaries(db: Queryable) {
  const { rows } = await db.query(
    'SELECT id, name, license_prefix AS prefix, is_active AS active FROM products ORDER BY name, id',
  );
  return parseRows(productSummaryRow, rows);
}

export async function countProducts(db: Queryable): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS total FROM products');
  return parseRow(z.object({ total: z.number() }), rows).total;
}
