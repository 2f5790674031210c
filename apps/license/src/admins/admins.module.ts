import type { Guard } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import { createAdminTokenService } from './admin-token.service.js';
import { adminTokenRoutes } from './admins.routes.js';
import type { JwtService } from './jwt.js';

export function adminTokenModule(needs: { jwt: JwtService; now: () => Date; admin: Guard }): FeatureModule {
  return { name: 'admin-token', routes: adminTokenRoutes({ service: createAdminTokenService(needs), admin: needs.admin }) };
}
