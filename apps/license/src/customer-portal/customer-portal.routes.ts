import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { appError } from '../common/error-codes.js';
import { actorOf } from '../common/actor.js';
import { isoDate } from '../common/schemas.js';
import { errorSchema, notFound, one, validationFailure } from '../common/responses.js';
import { licenseFileJsonSchema, licenseFileQuery } from '../licenses/license-file.js';
import { offlineActivationSchema } from '../machines/activation-request.js';
import { offlineActivationAnswer } from '../machines/offline-files.routes.js';
import { machineJsonSchema } from '../machines/machines.presenter.js';
import type { MachinesService } from '../machines/machines.service.js';
import {
  creditsJsonSchema,
  customerLicenseJsonSchema,
  customerStatsJsonSchema,
  licenseUsageJsonSchema,
} from './customer-portal.presenter.js';
import { releaseBodySchema } from './customer-portal.schema.js';
import type { createCustomerPortalService } from './customer-portal.service.js';

const usageQuery = z.object({ startDate: isoDate().optional(), endDate: isoDate().optional() });
const licenseParams = z.object({ licenseId: z.string() });
const tags = ['customer portal'];
const customerFailures = {
  401: { description: 'Not signed in', schema: errorSchema },
  403: { description: 'Not a customer', schema: errorSchema },
  503: { description: 'Panic mode is on', schema: errorSchema },
};

/** The customer API: a signed-in customer's own licenses only (closed in panic mode). */
export function customerPortalRoutes(deps: {
  service: ReturnType<typeof createCustomerPortalService>;
  customer: Guard;
  panicGuard: RequestHandler;
  machines: Pick<MachinesService, 'list'>;
}): AnyRoute[] {
  const { service, customer: guard } = deps;
  const before = [deps.panicGuard];
  // The customer guard has set req.customer.
  const me = (req: Request) => {
    if (!req.customer) throw appError('UNAUTHORIZED');
    return req.customer.id;
  };
  return [
    // Before `/:licenseId`, which would otherwise take "stats" as an id.
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/stats',
      summary: 'Counts of my licenses',
      tags,
      guard,
      before,
      responses: {
        200: { description: 'Counts by state', schema: one('stats', customerStatsJsonSchema) },
        ...customerFailures,
      },
      handler: async ({ req }) => ({ success: true, stats: await service.stats(me(req)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/:licenseId',
      summary: 'A license of mine and its sub-licenses',
      tags,
      guard,
      before,
      params: licenseParams,
      responses: {
        200: {
          description: 'The licenses',
          schema: z.object({ success: z.literal(true), licenses: z.array(customerLicenseJsonSchema) }),
        },
        ...customerFailures,
        ...notFound('License'),
      },
      handler: async ({ params, req }) => ({ success: true, licenses: await service.list(me(req), params.licenseId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/:licenseId/detail',
      summary: 'One license of mine',
      tags,
      guard,
      before,
      params: licenseParams,
      responses: {
        200: { description: 'The license', schema: one('license', customerLicenseJsonSchema) },
        ...customerFailures,
        ...notFound('License'),
      },
      handler: async ({ params, req }) => ({ success: true, license: await service.detail(me(req), params.licenseId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/:licenseId/machines',
      summary: 'The machines of a license of mine, oldest first',
      tags,
      guard,
      before,
      params: licenseParams,
      responses: {
        200: {
          description: 'The machines',
          schema: z.object({ success: z.literal(true), machines: z.array(machineJsonSchema) }),
        },
        ...customerFailures,
        ...notFound('License'),
      },
      handler: async ({ params, req }) => ({
        success: true,
        machines: await deps.machines.list(params.licenseId, me(req)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/:licenseId/usage',
      summary: 'Usage of a license of mine',
      tags,
      guard,
      before,
      params: licenseParams,
      query: usageQuery,
      responses: {
        200: {
          description: 'Usage in the range (the last 30 days by default)',
          schema: one('usage', licenseUsageJsonSchema),
        },
        ...validationFailure,
        ...customerFailures,
        ...notFound('License'),
      },
      handler: async ({ params, query, req }) => ({
        success: true,
        usage: await service.usage(me(req), params.licenseId, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/:licenseId/credits',
      summary: 'Credits of a license of mine',
      tags,
      guard,
      before,
      params: licenseParams,
      responses: {
        200: { description: 'Total, used and remaining credits', schema: one('credits', creditsJsonSchema) },
        ...customerFailures,
        ...notFound('License'),
      },
      handler: async ({ params, req }) => ({
        success: true,
        credits: await service.credits(me(req), params.licenseId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/customer/licenses/:licenseId/release',
      summary: 'Release an IP or hardware id of a license of mine',
      tags,
      guard,
      before,
      params: licenseParams,
      body: releaseBodySchema,
      description:
        'Body `{ ip }` or `{ hwid }`. At most CUSTOMER_RELEASES_PER_DAY releases per license in any 24 hours; each is audited.',
      responses: {
        200: { description: 'Released: the license as it is now', schema: one('license', customerLicenseJsonSchema) },
        ...validationFailure,
        ...customerFailures,
        404: { description: 'License not found, or the IP or hardware id is not in use', schema: errorSchema },
        429: { description: 'Release limit reached', schema: errorSchema },
      },
      handler: async ({ params, body, req }) => ({
        success: true,
        license: await service.release(actorOf(req), me(req), params.licenseId, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/customer/licenses/:licenseId/file',
      summary: 'An offline license file of a license of mine (signed)',
      tags,
      guard,
      before,
      params: licenseParams,
      query: licenseFileQuery,
      description:
        'A download: `{ format: "license-file/1", payload, signature, keyId }`, the signature verifiable with `/api/license/public-key`. `?fingerprint=F` binds it to a machine holding a seat.',
      responses: {
        200: { description: 'The license file', schema: licenseFileJsonSchema },
        ...customerFailures,
        ...notFound('License or machine'),
        403: {
          description: 'Not a customer, or the license is revoked, suspended, inactive or expired',
          schema: errorSchema,
        },
      },
      handler: async ({ params, query, req, res }) => {
        const { file, contentDisposition } = await service.file(me(req), params.licenseId, query.fingerprint);
        res.set({ 'Content-Disposition': contentDisposition, 'Cache-Control': 'no-store' });
        return file;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/customer/licenses/:licenseId/machines/offline',
      summary: 'Activate an air-gapped machine of a license of mine from its request code',
      tags,
      guard,
      before,
      params: licenseParams,
      body: offlineActivationSchema,
      description:
        "`requestCode` is what the client package's `createActivationRequest` made on the machine. The machine takes a seat under the usual limits; the answer carries a file bound to it (on a license with floating seats, the file borrows the seat). Audited.",
      responses: {
        201: { description: 'A new machine holds a seat', schema: offlineActivationAnswer },
        200: { description: 'The machine already held a seat', schema: offlineActivationAnswer },
        400: {
          description:
            'Validation failed, a request code that cannot be read or is for another license, or Borrowing not allowed',
          schema: errorSchema,
        },
        ...customerFailures,
        ...notFound('License'),
        403: {
          description: 'Not a customer, HWID limit exceeded, or the license is revoked, suspended, inactive or expired',
          schema: errorSchema,
        },
      },
      handler: async ({ params, body, req, res }) => {
        const { created, machine, file } = await service.activateOffline(
          actorOf(req),
          me(req),
          params.licenseId,
          body.requestCode,
        );
        // 201 for a new machine, 200 when it held a seat already, as activation answers.
        res
          .status(created ? 201 : 200)
          .set('Cache-Control', 'no-store')
          .json({ success: true, machine, file });
      },
    }),
  ];
}
