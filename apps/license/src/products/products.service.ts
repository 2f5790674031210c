import type pg from 'pg';
import { withTransaction, type Queryable } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import type { LicenseReads } from '../common/license-reads.js';
import { productJson } from './products.presenter.js';
import * as repo from './products.repository.js';
import type { CreateProduct, UpdateProduct } from './products.schema.js';

const notFound = () => appError('PRODUCT_NOT_FOUND');

/** What a new license needs of its product (the licenses service reads it in its transaction). */
export const productForLicense = (db: Queryable, productId: string) => repo.findProductForLicense(db, productId);

/** Every product's id, name, prefix and state, and how many there are (for the summary and dashboard). */
export const productSummaries = (db: Queryable) => repo.listProductSummaries(db);
export const productCount = (db: Queryable) => repo.countProducts(db);

export function createProductsService(deps: {
  pool: pg.Pool;
  now: () => Date;
  /** The license counts each product shows, read through the licenses feature. */
  licenses: Pick<LicenseReads, 'countsAt' | 'sum' | 'productHasLicenses'>;
}) {
  const { pool, now, licenses } = deps;
  /**
   * Adds each product's license counts ("active": active, not suspended, not revoked, not
   * expired) from the license counters, never by counting licenses.
   */
  const withCounts = async (rows: repo.ProductRow[], productId?: string): Promise<repo.ProductRow[]> => {
    if (!rows.length) return rows;
    const counts = licenses.sum(await licenses.countsAt(pool, now(), productId), (row) => row.productId);
    return rows.map((row) => {
      const found = counts.get(row.id);
      return { ...row, license_count: found?.total ?? 0, active_license_count: found?.active ?? 0 };
    });
  };
  return {
    async list(options: { includeCounts: boolean; activeOnly: boolean }) {
      const rows = await repo.listProducts(pool, options);
      return (options.includeCounts ? await withCounts(rows) : rows).map(productJson);
    },

    /** A page of products whose name contains `q`, with their license counts, and how many match. */
    async search(query: { q?: string; limit: number; skip: number }) {
      const { rows, total } = await repo.searchProducts(pool, query);
      return { products: (await withCounts(rows)).map(productJson), total };
    },

    async get(id: string, includeCounts: boolean) {
      const found = isUuid(id) ? await repo.findProduct(pool, id) : undefined;
      const row = found && includeCounts ? (await withCounts([found], id))[0] : found;
      if (!row) throw notFound();
      return productJson(row);
    },

    create: (actor: Actor, input: CreateProduct) =>
      withTransaction(pool, async (client) => {
        const product = productJson(await repo.insertProduct(client, input));
        await recordAudit(client, actor, {
          action: 'create',
          resourceType: 'product',
          resourceId: product._id,
          after: product,
        });
        return product;
      }),

    update: (actor: Actor, id: string, input: UpdateProduct) =>
      withTransaction(pool, async (client) => {
        const found = isUuid(id) ? await repo.findProduct(client, id) : undefined;
        if (!found) throw notFound();
        const before = productJson(found);
        const product = productJson((await repo.updateProduct(client, id, input))!);
        await recordAudit(client, actor, {
          action: 'update',
          resourceType: 'product',
          resourceId: id,
          before,
          after: product,
        });
        return product;
      }),

    remove: (actor: Actor, id: string) =>
      withTransaction(pool, async (client) => {
        const found = isUuid(id) ? await repo.findProduct(client, id) : undefined;
        if (!found) throw notFound();
        const before = productJson(found);
        // Licenses keep their product; deleting one that still has licenses would orphan them.
        if (await licenses.productHasLicenses(client, id)) throw appError('PRODUCT_HAS_LICENSES');
        await repo.deleteProduct(client, id);
        await recordAudit(client, actor, { action: 'delete', resourceType: 'product', resourceId: id, before });
      }),
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
