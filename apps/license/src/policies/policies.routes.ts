import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, conflict, notFound, one, page, successSchema, validationFailure } from '../common/responses.js';
import { idParams } from '../common/schemas.js';
import { policyJsonSchema } from './policies.presenter.js';
import type { PoliciesService } from './policies.service.js';
import { createPolicySchema, listPoliciesQuery, updatePolicySchema } from './policies.schema.js';

const tags = ['policies'];

/** The admin API of policies (a product's license templates). */
export function policyRoutes(deps: { service: PoliciesService; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  const notFoundAnswers = { ...notFound('Policy or product') };
  return [
    defineRoute({
      method: 'get',
      path: '/api/policies',
      summary: 'List policies, newest first (`productId`: of one product)',
      tags,
      guard: admin,
      query: listPoliciesQuery,
      responses: {
        200: { description: 'The policies', schema: page('policies', policyJsonSchema) },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const { policies } = await service.search({ productId: query.productId, q: query.q || undefined });
        return { success: true, policies, count: policies.length };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/policies/:id',
      summary: 'Read a policy',
      tags,
      guard: admin,
      params: idParams,
      responses: {
        200: { description: 'The policy', schema: one('policy', policyJsonSchema) },
        ...adminFailures,
        ...notFound('Policy'),
      },
      handler: async ({ params }) => ({ success: true, policy: await service.get(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/policies',
      summary: 'Create a policy',
      tags,
      guard: admin,
      body: createPolicySchema,
      status: 201,
      description: 'Unknown entitlement codes: 400 `Validation failed`, `details.entitlements` naming them.',
      audit: { action: 'create', resource: 'policy' },
      responses: {
        201: { description: 'The policy created', schema: one('policy', policyJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Product'),
      },
      handler: async ({ body, req }) => ({ success: true, policy: await service.create(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/policies/:id',
      summary: 'Update a policy',
      tags,
      guard: admin,
      params: idParams,
      body: updatePolicySchema,
      description:
        'Fields left out stay as they are. Its entitlements apply at the next validation of its licenses; its limits only to licenses made after.',
      audit: { action: 'update', resource: 'policy' },
      responses: {
        200: { description: 'The policy updated', schema: one('policy', policyJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...notFoundAnswers,
        ...conflict('Policy in use (moving it to another product while licenses use it)'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        policy: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/policies/:id',
      summary: 'Delete a policy no license uses',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'delete', resource: 'policy' },
      responses: {
        200: { description: 'Deleted', schema: successSchema },
        ...adminFailures,
        ...notFound('Policy'),
        ...conflict('Policy in use'),
      },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
  ];
}
