import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, one, validationFailure } from '../common/responses.js';
import { configPatchSchema, configViewSchema, panicBodySchema } from './runtime-config.schema.js';
import type { createRuntimeConfigService } from './runtime-config.service.js';

const tags = ['runtime configuration'];
const panicAnswer = z.object({ success: z.literal(true), panicMode: z.boolean() });

/**
 * `GET/PUT /api/admin/config` (security.panicMode, rateLimit.enabled/windowMs/max,
 * userRateLimit.windowMs/max) and the panic switch `GET/POST /api/admin/panic`.
 */
export function runtimeConfigRoutes(deps: {
  service: ReturnType<typeof createRuntimeConfigService>;
  admin: Guard;
}): AnyRoute[] {
  const { service, admin } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/admin/config',
      summary: 'The runtime configuration in force',
      tags,
      guard: admin,
      responses: {
        200: { description: 'The configuration, and the stored values', schema: one('config', configViewSchema) },
        ...adminFailures,
      },
      handler: () => ({ success: true, config: service.view() }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/admin/config',
      summary: 'Change the runtime configuration',
      tags,
      guard: admin,
      body: configPatchSchema,
      responses: {
        200: { description: 'The configuration in force after the change', schema: one('config', configViewSchema) },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ body, req }) => ({ success: true, config: await service.update(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/admin/panic',
      summary: 'Whether panic mode is on',
      tags,
      guard: admin,
      responses: { 200: { description: 'The panic mode', schema: panicAnswer }, ...adminFailures },
      handler: () => ({ success: true, panicMode: service.panicMode() }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/admin/panic',
      summary: 'Turn panic mode on or off',
      tags,
      guard: admin,
      body: panicBodySchema,
      responses: {
        200: { description: 'The panic mode after the change', schema: panicAnswer },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ body, req }) => ({
        success: true,
        panicMode: await service.setPanicMode(actorOf(req), body.enabled),
      }),
    }),
  ];
}
