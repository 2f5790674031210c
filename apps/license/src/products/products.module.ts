import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { productRoutes } from './products.routes.js';
import { productsService } from './products.service.js';

export function productsModule(needs: { pool: pg.Pool; now: () => Date; admin: Guard }): FeatureModule {
  return { name: 'products', routes: productRoutes({ service: productsService(needs), admin: needs.admin }) };
}
