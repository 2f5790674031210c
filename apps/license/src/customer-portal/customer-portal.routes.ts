import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { appError, defineRoute, type AnyRoute, type Guard } from '@app/http';
import { isoDate } from '../common/schemas.js';
import { notFound, validationFailure } from '../common/responses.js';
import type { customerPortalService } from './customer-portal.service.js';

const usageQuery = z.object({ startDate: isoDate().optional(), endDate: isoDate().optional() });
const licenseParams = z.object({ licenseId: z.string() });
const tags = ['customer portal'];
const customerFailures = {
  401: { description: 'Not signed in' }, 403: { description: 'Not a customer' }, 503: { description: 'Panic mode is on' },
};

/** The customer API: a signed-in customer's own licenses only (closed in panic mode). */
export function customerPortalRoutes(deps: {
  service: ReturnType<typeof customerPortalService>; customer: Guard; panicGuard: RequestHandler;
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
      method: 'get', path: '/api/customer/licenses/stats', summary: 'Counts of my licenses', tags, guard, before,
      responses: { 200: { description: 'Counts by state' }, ...customerFailures },
      handler: async ({ req }) => ({ success: true, stats: await service.stats(me(req)) }),
    }),
    defineRoute({
      method: 'get', path: '/api/customer/licenses/:licenseId', summary: 'A license of mine and its sub-licenses', tags, guard, before, params: licenseParams,
      responses: { 200: { description: 'The licenses' }, ...customerFailures, ...notFound('License') },
      handler: async ({ params, req }) => ({ success: true, licenses: await service.list(me(req), params.licenseId) }),
    }),
    defineRoute({
      method: 'get', path: '/api/customer/licenses/:licenseId/detail', summary: 'One license of mine', tags, guard, before, params: licenseParams,
      responses: { 200: { description: 'The license' }, ...customerFailures, ...notFound('License') },
      handler: async ({ params, req }) => ({ success: true, license: await service.detail(me(req), params.licenseId) }),
    }),
    defineRoute({
      method: 'get', path: '/api/customer/licenses/:licenseId/usage', summary: 'Usage of a license of mine', tags, guard, before,
      params: licenseParams, query: usageQuery,
      responses: { 200: { description: 'Usage in the range (the last 30 days by default)' }, ...validationFailure, ...customerFailures, ...notFound('License') },
      handler: async ({ params, query, req }) => ({ success: true, usage: await service.usage(me(req), params.licenseId, query) }),
    }),
    defineRoute({
      method: 'get', path: '/api/customer/licenses/:licenseId/credits', summary: 'Credits of a license of mine', tags, guard, before, params: licenseParams,
      responses: { 200: { description: 'Total, used and remaining credits' }, ...customerFailures, ...notFound('License') },
      handler: async ({ params, req }) => ({ success: true, credits: await service.credits(me(req), params.licenseId) }),
    }),
  ];
}
