import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { AdminTokenService } from './admin-token.service.js';
import { adminTokenRoutes } from './admins.routes.js';

export function adminTokenModule(needs: { service: AdminTokenService; admin: Guard }): FeatureModule {
  return { name: 'admin-token', routes: adminTokenRoutes({ service: needs.service, admin: needs.admin }) };
}
