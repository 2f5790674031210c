import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, conflict, notFound, one, page, successSchema, validationFailure } from '../common/responses.js';
import { customerJsonSchema } from './customers.presenter.js';
import { idParams } from '../common/schemas.js';
import type { createCustomersService } from './customers.service.js';
import { createCustomerSchema, listCustomersQuery, updateCustomerSchema } from './customers.schema.js';

const tags = ['customers'];

export function customerRoutes(deps: { service: ReturnType<typeof createCustomersService>; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/customers',
      summary: 'List customers',
      tags,
      guard: admin,
      query: listCustomersQuery,
      responses: {
        200: { description: 'A page of customers and the total', schema: page('customers', customerJsonSchema, true) },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const { customers, total } = await service.list(query);
        return { success: true, customers, count: customers.length, total };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/customers/:id',
      summary: 'Read a customer',
      tags,
      guard: admin,
      params: idParams,
      responses: {
        200: { description: 'The customer', schema: one('customer', customerJsonSchema) },
        ...adminFailures,
        ...notFound('Customer'),
      },
      handler: async ({ params }) => ({ success: true, customer: await service.get(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/customers',
      summary: 'Create a customer',
      tags,
      guard: admin,
      body: createCustomerSchema,
      status: 201,
      audit: { action: 'create', resource: 'customer' },
      responses: {
        201: { description: 'The customer created', schema: one('customer', customerJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...conflict('The userId is taken'),
      },
      handler: async ({ body, req }) => ({ success: true, customer: await service.create(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/customers/:id',
      summary: 'Update a customer',
      tags,
      guard: admin,
      params: idParams,
      body: updateCustomerSchema,
      audit: { action: 'update', resource: 'customer' },
      responses: {
        200: { description: 'The customer updated', schema: one('customer', customerJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Customer'),
        ...conflict('The userId is taken'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        customer: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/customers/:id',
      summary: 'Delete a customer (their licenses stay)',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'delete', resource: 'customer' },
      responses: { 200: { description: 'Deleted', schema: successSchema }, ...adminFailures, ...notFound('Customer') },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
  ];
}
