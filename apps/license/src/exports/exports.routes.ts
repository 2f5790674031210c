import type { Response } from 'express';
import { defineRoute, type AnyRoute, type Guard } from '@app/http';
import { actorOf } from '../common/actor.js';
import { adminFailures, validationFailure } from '../common/responses.js';
import { exportFilename, responseOutput, type ExportOutput } from './export-output.js';
import { licenseExportQuerySchema, transactionExportQuerySchema } from './exports.schema.js';
import type { ExportsService } from './exports.service.js';

export interface ExportRoutesDeps {
  service: ExportsService;
  admin: Guard;
  now: () => Date;
}

const tags = ['exports'];
const csv = (description: string) => ({ 200: { description, contentType: 'text/csv' } });
const pdf = (description: string) => ({ 200: { description, contentType: 'application/pdf' } });

export function exportRoutes({ service, admin, now }: ExportRoutesDeps): AnyRoute[] {
  /** Sets the file headers, then streams; an error before the first byte still gets a JSON answer. */
  const sendFile = async (
    res: Response,
    name: string,
    extension: 'csv' | 'pdf',
    write: (out: ExportOutput) => Promise<void>,
  ) => {
    res.status(200);
    res.type(extension === 'csv' ? 'text/csv; charset=utf-8' : 'application/pdf');
    res.set('Content-Disposition', `attachment; filename="${exportFilename(name, extension, now())}"`);
    res.set('Cache-Control', 'no-store');
    try {
      await write(responseOutput(res));
    } catch (error) {
      if (!res.headersSent) {
        res.removeHeader('Content-Disposition');
        res.removeHeader('Content-Type');
      }
      throw error; // after the first byte the error handler can only cut the connection
    }
    res.end();
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/export/licenses/csv',
      summary: 'Licenses as CSV',
      tags,
      guard: admin,
      query: licenseExportQuerySchema,
      responses: { ...csv('The licenses, one a row'), ...validationFailure, ...adminFailures },
      handler: ({ query, req, res }) =>
        sendFile(res, 'licenses', 'csv', (out) => service.licensesCsv(actorOf(req), query, out)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/export/licenses/pdf',
      summary: 'Licenses as a PDF report',
      tags,
      guard: admin,
      query: licenseExportQuerySchema,
      responses: { ...pdf('The licenses as a table'), ...validationFailure, ...adminFailures },
      handler: ({ query, req, res }) =>
        sendFile(res, 'licenses', 'pdf', (out) => service.licensesPdf(actorOf(req), query, out)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/export/transactions/csv',
      summary: 'Transactions as CSV',
      tags,
      guard: admin,
      query: transactionExportQuerySchema,
      responses: { ...csv('The transactions, one a row'), ...validationFailure, ...adminFailures },
      handler: ({ query, req, res }) =>
        sendFile(res, 'transactions', 'csv', (out) => service.transactionsCsv(actorOf(req), query, out)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/export/summary/pdf',
      summary: 'Summary statistics as a PDF report',
      tags,
      guard: admin,
      responses: { ...pdf('Counts by product and state'), ...adminFailures },
      handler: ({ req, res }) => sendFile(res, 'summary', 'pdf', (out) => service.summaryPdf(actorOf(req), out)),
    }),
  ];
}
