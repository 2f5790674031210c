import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import { auditPages } from './audit.pages.js';
import { auditRoutes } from './audit.routes.js';
import type { AuditService } from './audit.service.js';

/** The audit API and the admin console's audit log pages. */
export function auditModule(needs: { service: AuditService; admin: Guard; adminPage: Guard }): FeatureModule {
  const { service } = needs;
  return {
    name: 'audit',
    routes: [...auditRoutes({ service, admin: needs.admin }), ...auditPages({ service, adminPage: needs.adminPage })],
  };
}
