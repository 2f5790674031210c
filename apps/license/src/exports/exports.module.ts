import type pg from 'pg';
import type { Config } from '@app/config';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { exportRoutes } from './exports.routes.js';
import { createExportsService } from './exports.service.js';

/** The export routes (admin only), reading the database in EXPORT_BATCH_SIZE batches. */
export function exportsModule(needs: { config: Pick<Config, 'EXPORT_BATCH_SIZE'>; pool: pg.Pool; now: () => Date; admin: Guard }): FeatureModule {
  const service = createExportsService({ pool: needs.pool, now: needs.now, batchSize: needs.config.EXPORT_BATCH_SIZE });
  return { name: 'exports', routes: exportRoutes({ service, admin: needs.admin, now: needs.now }) };
}
