import { z } from 'zod';
import { defineRoute, type AnyRoute } from '@app/http';
import type { PasteGuards } from '../access/guards.js';
import { errorSchema, messageSchema } from '../common/responses.js';
import { apiKeyParamsSchema, apiKeySummarySchema, createApiKeySchema } from './api-keys.schema.js';
import type { ApiKeyService } from './api-keys.service.js';

export function apiKeyRoutes(deps: { service: ApiKeyService; guards: PasteGuards }): AnyRoute[] {
  const { service, guards } = deps;
  const tags = ['owner'];
  const refused = { description: 'Not the owner (or, for changes, no CSRF token)', schema: errorSchema };
  return [
    defineRoute({
      method: 'post',
      path: '/api/settings/api-keys',
      summary: 'Create an API key (its secret is shown once)',
      tags,
      guard: guards.ownerWrite,
      body: createApiKeySchema,
      responses: {
        200: {
          description: 'Created',
          schema: messageSchema.extend({ apiKey: apiKeySummarySchema.extend({ key: z.string() }) }),
        },
        400: { description: 'Invalid name', schema: errorSchema },
        403: refused,
      },
      handler: async ({ body, res }) => {
        const apiKey = await service.create(body.name);
        res.set('Cache-Control', 'no-store');
        return { success: true, message: 'API key created: copy it now, it is not shown again', apiKey };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/settings/api-keys',
      summary: 'List the API keys',
      tags,
      guard: guards.owner,
      responses: {
        200: {
          description: 'The keys (never their secrets)',
          schema: z.object({ apiKeys: z.array(apiKeySummarySchema) }),
        },
        403: refused,
      },
      handler: async ({ res }) => {
        res.set('Cache-Control', 'no-store');
        return { apiKeys: await service.list() };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/settings/api-keys/:id',
      summary: 'Delete an API key',
      tags,
      guard: guards.ownerWrite,
      params: apiKeyParamsSchema,
      responses: {
        200: { description: 'Deleted', schema: messageSchema },
        403: refused,
        404: { description: 'No such key', schema: errorSchema },
      },
      handler: async ({ params }) => {
        await service.remove(params.id);
        return { success: true, message: 'API key deleted' };
      },
    }),
  ];
}
