import type pg from 'pg';
import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { policyRoutes } from './policies.routes.js';
import { createPoliciesService } from './policies.service.js';

/** The policies API and the admin console's policy pages. */
export function policiesModule(needs: { pool: pg.Pool; admin: Guard }): FeatureModule {
  const service = createPoliciesService(needs);
  return { name: 'policies', routes: policyRoutes({ service, admin: needs.admin }) };
}
