import { Router, type RequestHandler } from 'express';
import { validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import type { productsService } from './products.service.js';
import { createProductSchema, listProductsQuery, productQuery, updateProductSchema, type CreateProduct, type UpdateProduct } from './products.schema.js';

export function productRoutes(deps: { service: ReturnType<typeof productsService>; requireAdmin: RequestHandler }): Router {
  const { service, requireAdmin } = deps;
  const router = Router();
  router.use('/api/products', requireAdmin);

  router.get('/api/products', validate({ query: listProductsQuery }), async (req, res) => {
    const products = await service.list(req.valid.query as { includeCounts: boolean; activeOnly: boolean });
    res.json({ success: true, products, count: products.length });
  });
  router.get('/api/products/:id', validate({ query: productQuery }), async (req, res) => {
    const { includeCounts } = req.valid.query as { includeCounts: boolean };
    res.json({ success: true, product: await service.get(String(req.params.id), includeCounts) });
  });
  router.post('/api/products', validate({ body: createProductSchema }), async (req, res) => {
    res.status(201).json({ success: true, product: await service.create(actorOf(req), req.valid.body as CreateProduct) });
  });
  router.put('/api/products/:id', validate({ body: updateProductSchema }), async (req, res) => {
    res.json({ success: true, product: await service.update(actorOf(req), String(req.params.id), req.valid.body as UpdateProduct) });
  });
  router.delete('/api/products/:id', async (req, res) => {
    await service.remove(actorOf(req), String(req.params.id));
    res.json({ success: true });
  });
  return router;
}
