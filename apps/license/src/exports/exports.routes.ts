import { Router, type Request, type RequestHandler, type Response } from 'express';
import { validate } from '@app/http';
import { actorOf } from '../common/actor.js';
import { exportFilename, responseOutput, type ExportOutput } from './export-output.js';
import {
  licenseExportQuerySchema, transactionExportQuerySchema, type LicenseExportFilter, type TransactionExportFilter,
} from './exports.schema.js';
import type { ExportsService } from './exports.service.js';

export interface ExportRoutesDeps { service: ExportsService; requireAdmin: RequestHandler; now: () => Date }

export function exportRoutes({ service, requireAdmin, now }: ExportRoutesDeps): Router {
  const router = Router();

  /** Sets the file headers, then streams; an error before the first byte still gets a JSON answer. */
  const sendFile = (name: string, extension: 'csv' | 'pdf', write: (req: Request, out: ExportOutput) => Promise<void>) =>
    async (req: Request, res: Response) => {
      res.status(200);
      res.type(extension === 'csv' ? 'text/csv; charset=utf-8' : 'application/pdf');
      res.set('Content-Disposition', `attachment; filename="${exportFilename(name, extension, now())}"`);
      res.set('Cache-Control', 'no-store');
      try {
        await write(req, responseOutput(res));
      } catch (error) {
        if (!res.headersSent) {
          res.removeHeader('Content-Disposition');
          res.removeHeader('Content-Type');
        }
        throw error; // after the first byte the error handler can only cut the connection
      }
      res.end();
    };

  router.get('/api/export/licenses/csv', requireAdmin, validate({ query: licenseExportQuerySchema }),
    sendFile('licenses', 'csv', (req, out) => service.licensesCsv(actorOf(req), req.valid.query as LicenseExportFilter, out)));
  router.get('/api/export/licenses/pdf', requireAdmin, validate({ query: licenseExportQuerySchema }),
    sendFile('licenses', 'pdf', (req, out) => service.licensesPdf(actorOf(req), req.valid.query as LicenseExportFilter, out)));
  router.get('/api/export/transactions/csv', requireAdmin, validate({ query: transactionExportQuerySchema }),
    sendFile('transactions', 'csv', (req, out) => service.transactionsCsv(actorOf(req), req.valid.query as TransactionExportFilter, out)));
  router.get('/api/export/summary/pdf', requireAdmin,
    sendFile('summary', 'pdf', (req, out) => service.summaryPdf(actorOf(req), out)));

  return router;
}
