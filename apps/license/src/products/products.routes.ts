import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, errorSchema, notFound, one, validationFailure } from '../common/responses.js';
import { productJsonSchema } from './products.presenter.js';
import { idParams } from '../common/schemas.js';
import type { createProductsService } from './products.service.js';
import { createProductSchema, listProductsQuery, productQuery, updateProductSchema } from './products.schema.js';

const tags = ['products'];
const success = z.object({ success: z.literal(true) });

export function productRoutes(deps: { service: ReturnType<typeof createProductsService>; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/products',
      summary: 'List products',
      tags,
      guard: admin,
      query: listProductsQuery,
      responses: {
        200: {
          description: 'The products',
          schema: z.object({ success: z.literal(true), products: z.array(productJsonSchema), count: z.number().int() }),
        },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const products = await service.list(query);
        return { success: true, products, count: products.length };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/products/:id',
      summary: 'Read a product',
      tags,
      guard: admin,
      params: idParams,
      query: productQuery,
      responses: {
        200: { description: 'The product', schema: one('product', productJsonSchema) },
        ...adminFailures,
        ...notFound('Product'),
      },
      handler: async ({ params, query }) => ({
        success: true,
        product: await service.get(params.id, query.includeCounts),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/products',
      summary: 'Create a product',
      tags,
      guard: admin,
      body: createProductSchema,
      status: 201,
      audit: { action: 'create', resource: 'product' },
      responses: {
        201: { description: 'The product created', schema: one('product', productJsonSchema) },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ body, req }) => ({ success: true, product: await service.create(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/products/:id',
      summary: 'Update a product',
      tags,
      guard: admin,
      params: idParams,
      body: updateProductSchema,
      audit: { action: 'update', resource: 'product' },
      responses: {
        200: { description: 'The product updated', schema: one('product', productJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Product'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        product: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/products/:id',
      summary: 'Delete a product without licenses',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'delete', resource: 'product' },
      responses: {
        200: { description: 'Deleted', schema: success },
        400: { description: 'The product has licenses', schema: errorSchema },
        ...adminFailures,
        ...notFound('Product'),
      },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
  ];
}
