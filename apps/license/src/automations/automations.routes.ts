import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, notFound, one, successSchema, validationFailure } from '../common/responses.js';
import { automatedActionJsonSchema, runResultJsonSchema } from './automations.presenter.js';
import { idParams } from '../common/schemas.js';
import type { createAutomationsService } from './automations.service.js';
import { createActionSchema, executeSchema, updateActionSchema } from './automations.schema.js';

const tags = ['automated actions'];

export function automationRoutes(deps: {
  service: ReturnType<typeof createAutomationsService>;
  admin: Guard;
}): AnyRoute[] {
  const { service, admin } = deps;
  const missing = notFound('Automated action');
  const oneAction = one('action', automatedActionJsonSchema);
  return [
    defineRoute({
      method: 'get',
      path: '/api/automated-actions',
      summary: 'List automated actions',
      tags,
      guard: admin,
      responses: {
        200: {
          description: 'The automated actions',
          schema: z.object({ success: z.literal(true), actions: z.array(automatedActionJsonSchema) }),
        },
        ...adminFailures,
      },
      handler: async () => ({ success: true, actions: await service.list() }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/automated-actions/:id',
      summary: 'Read an automated action',
      tags,
      guard: admin,
      params: idParams,
      responses: { 200: { description: 'The automated action', schema: oneAction }, ...adminFailures, ...missing },
      handler: async ({ params }) => ({ success: true, action: await service.get(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/automated-actions',
      summary: 'Create an automated action',
      tags,
      guard: admin,
      body: createActionSchema,
      status: 201,
      responses: {
        201: { description: 'The automated action created', schema: oneAction },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ body, req }) => ({ success: true, action: await service.create(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/automated-actions/:id',
      summary: 'Update an automated action',
      tags,
      guard: admin,
      params: idParams,
      body: updateActionSchema,
      responses: {
        200: { description: 'The automated action updated', schema: oneAction },
        ...validationFailure,
        ...adminFailures,
        ...missing,
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        action: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/automated-actions/:id',
      summary: 'Delete an automated action',
      tags,
      guard: admin,
      params: idParams,
      responses: { 200: { description: 'Deleted', schema: successSchema }, ...adminFailures, ...missing },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/automated-actions/:id/execute',
      summary: 'Run an automated action now',
      tags,
      guard: admin,
      params: idParams,
      body: executeSchema,
      responses: {
        200: { description: 'What each step did', schema: one('result', runResultJsonSchema) },
        ...validationFailure,
        ...adminFailures,
        ...missing,
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        result: await service.execute(actorOf(req), params.id, body.context),
      }),
    }),
  ];
}
