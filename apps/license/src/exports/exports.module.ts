import type { RequestHandler, Router } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import { exportRoutes } from './exports.routes.js';
import { createExportsService } from './exports.service.js';

/** The export routes (admin only), reading the database in EXPORT_BATCH_SIZE batches. */
export function setupExports(options: { config: Config; pool: pg.Pool; now: () => Date; requireAdmin: RequestHandler }): Router {
  const service = createExportsService({ pool: options.pool, now: options.now, batchSize: options.config.EXPORT_BATCH_SIZE });
  return exportRoutes({ service, requireAdmin: options.requireAdmin, now: options.now });
}
