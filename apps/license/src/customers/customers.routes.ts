import { Router, type RequestHandler } from 'express';
import { validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import type { customersService } from './customers.service.js';
import { createCustomerSchema, listCustomersQuery, updateCustomerSchema, type CreateCustomer, type ListCustomers, type UpdateCustomer } from './customers.schema.js';

export function customerRoutes(deps: { service: ReturnType<typeof customersService>; requireAdmin: RequestHandler }): Router {
  const { service, requireAdmin } = deps;
  const router = Router();
  router.use('/api/customers', requireAdmin);

  router.get('/api/customers', validate({ query: listCustomersQuery }), async (req, res) => {
    const { customers, total } = await service.list(req.valid.query as ListCustomers);
    res.json({ success: true, customers, count: customers.length, total });
  });
  router.get('/api/customers/:id', async (req, res) => {
    res.json({ success: true, customer: await service.get(String(req.params.id)) });
  });
  router.post('/api/customers', validate({ body: createCustomerSchema }), async (req, res) => {
    res.status(201).json({ success: true, customer: await service.create(actorOf(req), req.valid.body as CreateCustomer) });
  });
  router.put('/api/customers/:id', validate({ body: updateCustomerSchema }), async (req, res) => {
    res.json({ success: true, customer: await service.update(actorOf(req), String(req.params.id), req.valid.body as UpdateCustomer) });
  });
  router.delete('/api/customers/:id', async (req, res) => {
    await service.remove(actorOf(req), String(req.params.id));
    res.json({ success: true });
  });
  return router;
}
