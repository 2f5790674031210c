import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { z } from 'zod';
import { adminFailures, notFound, one, page, successSchema, validationFailure } from '../common/responses.js';
import { licenseDetailJsonSchema, licenseJsonSchema } from './licenses.presenter.js';
import { idParams } from '../common/schemas.js';
import type { createLicensesService } from './licenses.service.js';
import {
  createLicenseSchema,
  keySchema,
  listLicensesQuery,
  reasonSchema,
  updateLicenseSchema,
} from './licenses.schema.js';

type Service = ReturnType<typeof createLicensesService>;
const tags = ['licenses'];

/** The admin resource API of licenses, and rotate/clear of the specification. */
export function licenseRoutes(deps: { service: Service; admin: Guard }): AnyRoute[] {
  const { service, admin } = deps;
  const oneLicense = {
    200: { description: 'The license', schema: one('license', licenseJsonSchema) },
    ...adminFailures,
    ...notFound('License'),
  };
  return [
    defineRoute({
      method: 'get',
      path: '/api/licenses',
      summary: 'List licenses',
      tags,
      guard: admin,
      query: listLicensesQuery,
      responses: {
        200: {
          description: 'A page of licenses, the total, and the cursor of the next page (null at the end)',
          schema: page('licenses', licenseJsonSchema, true).extend({ nextCursor: z.string().nullable() }),
        },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ query }) => {
        const { licenses, total, nextCursor } = await service.list(query);
        return { success: true, licenses, count: licenses.length, total, nextCursor };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/licenses/:id',
      summary: 'Read a license with its usage',
      tags,
      guard: admin,
      params: idParams,
      responses: {
        ...oneLicense,
        200: {
          description: 'The license with its members and usage totals',
          schema: one('license', licenseDetailJsonSchema),
        },
      },
      handler: async ({ params }) => ({ success: true, license: await service.detail(params.id) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/licenses',
      summary: 'Create a license',
      tags,
      guard: admin,
      body: createLicenseSchema,
      status: 201,
      audit: { action: 'create', resource: 'license' },
      responses: {
        201: { description: 'The license created', schema: one('license', licenseJsonSchema) },
        ...validationFailure,
        ...adminFailures,
      },
      handler: async ({ body, req }) => ({ success: true, license: await service.create(actorOf(req), body) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/licenses/:id',
      summary: 'Update a license',
      tags,
      guard: admin,
      params: idParams,
      body: updateLicenseSchema,
      audit: { action: 'update', resource: 'license' },
      responses: { ...oneLicense, ...validationFailure },
      handler: async ({ params, body, req }) => ({
        success: true,
        license: await service.update(actorOf(req), params.id, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/licenses/:id',
      summary: 'Delete a license',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'delete', resource: 'license' },
      responses: { 200: { description: 'Deleted', schema: successSchema }, ...adminFailures, ...notFound('License') },
      handler: async ({ params, req }) => {
        await service.remove(actorOf(req), params.id);
        return { success: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/licenses/:id/suspend',
      summary: 'Suspend a license',
      tags,
      guard: admin,
      params: idParams,
      body: reasonSchema,
      audit: { action: 'suspend', resource: 'license' },
      responses: { ...oneLicense, ...validationFailure },
      handler: async ({ params, body, req }) => ({
        success: true,
        license: await service.suspend(actorOf(req), params.id, body.reason),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/licenses/:id/reactivate',
      summary: 'Lift a suspension',
      tags,
      guard: admin,
      params: idParams,
      audit: { action: 'activate', resource: 'license' },
      responses: oneLicense,
      handler: async ({ params, req }) => ({
        success: true,
        license: await service.reactivate(actorOf(req), params.id),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/licenses/:id/revoke',
      summary: 'Revoke a license for good',
      tags,
      guard: admin,
      params: idParams,
      body: reasonSchema,
      audit: { action: 'revoke', resource: 'license' },
      responses: { ...oneLicense, ...validationFailure },
      handler: async ({ params, body, req }) => ({
        success: true,
        license: await service.revoke(actorOf(req), params.id, body.reason),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/license/rotate',
      summary: 'Replace a license key with a new one',
      tags,
      guard: admin,
      body: keySchema,
      audit: { action: 'update', resource: 'license' },
      responses: {
        200: {
          description: 'The old and the new key',
          schema: z.object({ success: z.literal(true), oldKey: z.string(), newKey: z.string() }),
        },
        ...validationFailure,
        ...adminFailures,
        ...notFound('License'),
      },
      handler: async ({ body, req }) => {
        const { oldKey, newKey } = await service.rotate(actorOf(req), body.key);
        return { success: true, oldKey, newKey };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/license/clear',
      summary: 'Clear the recorded IPs and hardware ids of a license',
      tags,
      guard: admin,
      body: keySchema,
      audit: { action: 'update', resource: 'license' },
      responses: {
        200: { description: 'Cleared', schema: z.object({ success: z.literal(true), message: z.string() }) },
        ...validationFailure,
        ...adminFailures,
        ...notFound('License'),
      },
      handler: async ({ body, req }) => {
        await service.clear(actorOf(req), body.key);
        return { success: true, message: 'License restrictions cleared' };
      },
    }),
  ];
}
