import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, conflict, notFound, one, page, successSchema, validationFailure } from '../common/responses.js';
import { idParams } from '../common/schemas.js';
import { entitlementJsonSchema } from './entitlements.presenter.js';
import type { EntitlementsService } from './entitlements.service.js';
import { createEntitlementSchema, updateEntitlementSchema } from './entitlements.schema.js';

const tags = ['entitlements'];
const listQuery = z.object({ q: z.string().trim().max(200).optional() });

/** The admin API of entitlements (feature flags licenses grant). */
export function entitlementRoutes(deps: { service: EntitlementsService; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/entitlements',
      summary: 'List entitlements (by code)',
      tags,
      guard: admin,
      query: listQuery,
      responses: {
        200: { description: 'The entitlements', schema: page('entitlements', entitlementJsonSchema) },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const { entitlements } = await service.search({ q: query.q || undefined });
        return { success: true, entitlements, count: entitlements.length };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/entitlements/:id',
      summary: 'Read an entitlement',
      tags,
      guard: admin,
      params: idParams,
      responses: {
        200: { description: 'The entitlement', schema: one('entitlement', entitlementJsonSchema) },
        ...adminFailures,
        ...notFound('Entitlement'),
      },
      handler: async ({ params }) => ({ success: true, entitlement: await service.get(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/entitlements',
      summary: 'Create an entitlement',
      tags,
      guard: admin,
      body: createEntitlementSchema,
      status: 201,
      audit: { action: 'create', resource: 'entitlement' },
      responses: {
        201: { description: 'The entitlement created', schema: one('entitlement', entitlementJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...conflict('Entitlement already exists (the code is taken)'),
      },
      handler: async ({ body, req }) => ({ success: true, entitlement: await service.create(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/entitlements/:id',
      summary: 'Update an entitlement',
      tags,
      guard: admin,
      params: idParams,
      body: updateEntitlementSchema,
      audit: { action: 'update', resource: 'entitlement' },
      responses: {
        200: { description: 'The entitlement updated', schema: one('entitlement', entitlementJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Entitlement'),
        ...conflict('Entitlement already exists (the code is taken)'),
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        entitlement: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/entitlements/:id',
      summary: 'Delete an entitlement no policy or license grants',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'delete', resource: 'entitlement' },
      responses: {
        200: { description: 'Deleted', schema: successSchema },
        ...adminFailures,
        ...notFound('Entitlement'),
        ...conflict('Entitlement in use'),
      },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
  ];
}
