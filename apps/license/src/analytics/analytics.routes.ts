import type { Response } from 'express';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { adminFailures, notFound, validationFailure } from '../common/responses.js';
import { idParams } from '../common/schemas.js';
import { exportFilename } from '../exports/export-output.js';
import { analyticsAnswer, licenseAnalyticsQuery, validationAnalyticsQuery } from './analytics.schema.js';
import { analyticsCsv, type AnalyticsService } from './analytics.service.js';

const tags = ['analytics'];
const csv = (description: string) => ({ 200: { description, contentType: 'text/csv' } });
const daysDescription =
  'A row a day (UTC, both ends included; default the last 30 days): successes, refusals by error text, distinct machines and addresses.';

/** The validation analytics of the admin API (daily rollups), as JSON and as CSV. */
export function analyticsRoutes(deps: { service: AnalyticsService; admin: Guard; now: () => Date }): AnyRoute[] {
  const { service, admin } = deps;
  const sendCsv = (res: Response, name: string, text: string) => {
    res.status(200);
    res.type('text/csv; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="${exportFilename(name, 'csv', deps.now())}"`);
    res.set('Cache-Control', 'no-store');
    res.send(text);
  };
  return [
    defineRoute({
      method: 'get',
      path: '/api/analytics/validations',
      summary: 'Validations by day',
      description: `${daysDescription} Every product's, unknown keys included, or one product's (\`productId\`).`,
      tags,
      guard: admin,
      query: validationAnalyticsQuery,
      responses: {
        200: { description: 'The days', schema: analyticsAnswer },
        ...validationFailure,
        ...adminFailures,
        ...notFound('Product'),
      },
      handler: async ({ query }) => ({ success: true as const, ...(await service.validations(query)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/analytics/validations/csv',
      summary: 'Validations by day as CSV',
      description: `${daysDescription} A column per refusal text.`,
      tags,
      guard: admin,
      query: validationAnalyticsQuery,
      responses: { ...csv('The days, one a row'), ...validationFailure, ...adminFailures, ...notFound('Product') },
      handler: async ({ query, res }) => {
        sendCsv(res, 'validations', analyticsCsv((await service.validations(query)).days));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/licenses/:id/analytics',
      summary: "A license's validations by day",
      description: daysDescription,
      tags,
      guard: admin,
      params: idParams,
      query: licenseAnalyticsQuery,
      responses: {
        200: { description: 'The days', schema: analyticsAnswer },
        ...validationFailure,
        ...adminFailures,
        ...notFound('License'),
      },
      handler: async ({ params, query }) => ({
        success: true as const,
        ...(await service.ofLicense(params.id, query)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/licenses/:id/analytics/csv',
      summary: "A license's validations by day as CSV",
      description: `${daysDescription} A column per refusal text.`,
      tags,
      guard: admin,
      params: idParams,
      query: licenseAnalyticsQuery,
      responses: { ...csv('The days, one a row'), ...validationFailure, ...adminFailures, ...notFound('License') },
      handler: async ({ params, query, res }) => {
        sendCsv(res, 'license-validations', analyticsCsv((await service.ofLicense(params.id, query)).days));
      },
    }),
  ];
}
