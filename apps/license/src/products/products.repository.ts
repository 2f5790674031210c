import type { Queryable, RowOf } from '@app/db';
import { licenseCountsAt, sumLicenseCounts } from '../licenses/license-counts.repository.js';
import type { products } from './products.table.js';
import type { CreateProduct, UpdateProduct } from './products.schema.js';

/** A product, with its license counts where the query counts them. */
export type ProductRow = RowOf<typeof products> & { license_count?: number; active_license_count?: number };

/**
 * Adds each product's license counts ("active": active, not suspended, not revoked, not expired)
 * from the license counters (licenses/license-counts.repository.ts), never by counting licenses.
 */
async function withCounts(db: Queryable, rows: ProductRow[], now: Date, productId?: string): Promise<ProductRow[]> {
  if (!rows.length) return rows;
  const counts = sumLicenseCounts(await licenseCountsAt(db, now, productId), (row) => row.productId);
  return rows.map((row) => {
    const found = counts.get(row.id);
    return { ...row, license_count: found?.total ?? 0, active_license_count: found?.active ?? 0 };
  });
}

export async function listProducts(
  db: Queryable,
  options: { includeCounts: boolean; activeOnly: boolean; now: Date },
): Promise<ProductRow[]> {
  const { rows } = await db.query<ProductRow>(
    `SELECT p.* FROM products p ${options.activeOnly ? 'WHERE p.is_active' : ''} ORDER BY p.created_at DESC, p.id`,
  );
  return options.includeCounts ? withCounts(db, rows, options.now) : rows;
}

/** A page of products, newest first, whose name contains `q` (any case), with their license counts and the total. */
export async function searchProducts(db: Queryable, query: { q?: string; limit: number; skip: number; now: Date }) {
  const pattern = query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = 'WHERE ($1::text IS NULL OR p.name ILIKE $1)';
  const [page, total] = await Promise.all([
    db.query<ProductRow>(`SELECT p.* FROM products p ${where} ORDER BY p.created_at DESC, p.id LIMIT $2 OFFSET $3`, [
      pattern,
      query.limit,
      query.skip,
    ]),
    db.query<{ total: number }>(`SELECT count(*) AS total FROM products p ${where}`, [pattern]),
  ]);
  return { rows: await withCounts(db, page.rows, query.now), total: Number(total.rows[0]?.total ?? 0) };
}

export async function findProduct(
  db: Queryable,
  id: string,
  options: { includeCounts: boolean; now: Date } = { includeCounts: false, now: new Date() },
): Promise<ProductRow | undefined> {
  const { rows } = await db.query<ProductRow>('SELECT p.* FROM products p WHERE p.id = $1', [id]);
  return options.includeCounts ? (await withCounts(db, rows, options.now, id))[0] : rows[0];
}

export async function insertProduct(db: Queryable, input: CreateProduct): Promise<ProductRow> {
  const { rows } = await db.query<ProductRow>(
    `INSERT INTO products (name, description, is_active, license_prefix) VALUES ($1, $2, $3, $4) RETURNING *`,
    [input.name, input.description, input.isActive, input.licensePrefix],
  );
  return rows[0]!;
}

export async function updateProduct(db: Queryable, id: string, input: UpdateProduct): Promise<ProductRow | undefined> {
  const { rows } = await db.query<ProductRow>(
    `UPDATE products SET name = coalesce($2, name), description = coalesce($3, description),
       is_active = coalesce($4, is_active), license_prefix = coalesce($5, license_prefix), updated_at = now()
     WHERE id = $1 RETURNING *`,
    [id, input.name ?? null, input.description ?? null, input.isActive ?? null, input.licensePrefix ?? null],
  );
  return rows[0];
}

export async function deleteProduct(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM products WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function productHasLicenses(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM licenses WHERE product_id = $1 LIMIT 1', [id]);
  return (rowCount ?? 0) > 0;
}
