import type pg from 'pg';
import { withTransaction } from '@app/db';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.repository.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import { productJson } from './products.presenter.js';
import * as repo from './products.repository.js';
import type { CreateProduct, UpdateProduct } from './products.schema.js';

const notFound = () => appError('PRODUCT_NOT_FOUND');

export function createProductsService(deps: { pool: pg.Pool; now: () => Date }) {
  const { pool, now } = deps;
  return {
    list: async (options: { includeCounts: boolean; activeOnly: boolean }) =>
      (await repo.listProducts(pool, { ...options, now: now() })).map(productJson),

    /** A page of products whose name contains `q`, with their license counts, and how many match. */
    async search(query: { q?: string; limit: number; skip: number }) {
      const { rows, total } = await repo.searchProducts(pool, { ...query, now: now() });
      return { products: rows.map(productJson), total };
    },

    async get(id: string, includeCounts: boolean) {
      const row = isUuid(id) ? await repo.findProduct(pool, id, { includeCounts, now: now() }) : undefined;
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
        if (await repo.productHasLicenses(client, id)) throw appError('PRODUCT_HAS_LICENSES');
        await repo.deleteProduct(client, id);
        await recordAudit(client, actor, { action: 'delete', resourceType: 'product', resourceId: id, before });
      }),
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
