import type pg from 'pg';
import { withTransaction } from '@app/db';
import { HttpError } from '@app/http';
import { recordAudit } from '../audit/audit.repository.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import * as repo from './products.repository.js';
import type { CreateProduct, UpdateProduct } from './products.schema.js';

const notFound = () => HttpError.notFound('Product not found');

export function productsService(deps: { pool: pg.Pool; now: () => Date }) {
  const { pool, now } = deps;
  return {
    list: (options: { includeCounts: boolean; activeOnly: boolean }) => repo.listProducts(pool, { ...options, now: now() }),

    async get(id: string, includeCounts: boolean) {
      const product = isUuid(id) ? await repo.findProduct(pool, id, { includeCounts, now: now() }) : undefined;
      if (!product) throw notFound();
      return product;
    },

    create: (actor: Actor, input: CreateProduct) => withTransaction(pool, async (client) => {
      const product = await repo.insertProduct(client, input);
      await recordAudit(client, actor, { action: 'create', resourceType: 'product', resourceId: product._id, after: product });
      return product;
    }),

    update: (actor: Actor, id: string, input: UpdateProduct) => withTransaction(pool, async (client) => {
      const before = isUuid(id) ? await repo.findProduct(client, id) : undefined;
      if (!before) throw notFound();
      const product = (await repo.updateProduct(client, id, input))!;
      await recordAudit(client, actor, { action: 'update', resourceType: 'product', resourceId: id, before, after: product });
      return product;
    }),

    remove: (actor: Actor, id: string) => withTransaction(pool, async (client) => {
      const before = isUuid(id) ? await repo.findProduct(client, id) : undefined;
      if (!before) throw notFound();
      // Licenses keep their product; deleting one that still has licenses would orphan them.
      if (await repo.productHasLicenses(client, id)) throw HttpError.badRequest('Product has licenses and cannot be deleted');
      await repo.deleteProduct(client, id);
      await recordAudit(client, actor, { action: 'delete', resourceType: 'product', resourceId: id, before });
    }),
  };
}
