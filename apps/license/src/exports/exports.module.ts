import type { Queryable } from '@app/db';
import type pg from 'pg';
import type { Config } from '@app/config';
import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { CustomersService } from '../customers/customers.service.js';
import type { ProductsService } from '../products/products.service.js';
import { exportPages } from './exports.pages.js';
import { exportRoutes } from './exports.routes.js';
import { createExportsService } from './exports.service.js';
import type { SummaryReads } from './summary-statistics.js';

/** The customer filter is a select: the latest customers, enough for a console, not a directory. */
const customerChoices = 500;

/** The export routes (admin only), reading the database in EXPORT_BATCH_SIZE batches, and the admin console's exports page. */
export function exportsModule(needs: {
  config: Pick<Config, 'EXPORT_BATCH_SIZE'>;
  pool: pg.Pool;
  reads: Queryable;
  now: () => Date;
  products: ProductsService;
  customers: CustomersService;
  summaryReads: SummaryReads;
  admin: Guard;
  adminPage: Guard;
}): FeatureModule {
  const service = createExportsService({
    pool: needs.pool,
    reads: needs.reads,
    now: needs.now,
    batchSize: needs.config.EXPORT_BATCH_SIZE,
    summaryReads: needs.summaryReads,
  });
  // The filters' choices are read through the products and customers services.
  const { products, customers } = needs;
  const choices = async () => {
    const [productList, customerList] = await Promise.all([
      products.list({ includeCounts: false, activeOnly: false }),
      customers.list({ limit: customerChoices, skip: 0 }),
    ]);
    return {
      products: productList.map((product) => ({ id: product._id, name: product.name, active: product.isActive })),
      customers: customerList.customers.map((customer) => ({
        id: customer._id,
        name: customer.name,
        email: customer.email ?? '',
      })),
    };
  };
  return {
    name: 'exports',
    routes: [
      ...exportRoutes({ service, admin: needs.admin, now: needs.now }),
      ...exportPages({ choices, adminPage: needs.adminPage }),
    ],
  };
}
