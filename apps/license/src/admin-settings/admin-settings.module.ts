import type { Request } from 'express';
import type pg from 'pg';
import type { Guard } from '@app/http';
import type { AdminTokenService } from '../admins/admin-token.service.js';
import type { AdminsService } from '../admins/admins.service.js';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import type { RuntimeConfigService } from '../runtime-config/runtime-config.service.js';
import type { TwoFactorService } from '../two-factor/two-factor.service.js';
import type { SigningKeysService } from '../signing/signing-keys.service.js';
import { signingKeysSettingsPages } from './admin-settings-signing-keys.pages.js';
import { securitySettingsPages } from './admin-settings-security.pages.js';
import { generalSettingsPages } from './admin-settings.pages.js';
import { createAdminSettingsService } from './admin-settings.service.js';

/** The admin console's settings pages (no panic guard: an admin must reach the switch in panic mode). */
export function adminSettingsModule(needs: {
  pool: pg.Pool;
  now: () => Date;
  runtimeConfig: RuntimeConfigService;
  admins: AdminsService;
  tokens: AdminTokenService;
  twoFactor: TwoFactorService;
  signingKeys: SigningKeysService;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
}): FeatureModule {
  const service = createAdminSettingsService({
    runtimeConfig: needs.runtimeConfig,
    admins: needs.admins,
    tokens: needs.tokens,
    twoFactor: needs.twoFactor,
    signingKeys: needs.signingKeys,
  });
  const deps = {
    service,
    adminPage: needs.adminPage,
    csrfToken: needs.csrfToken,
    now: needs.now,
    auditFailure: (req: Request, target: Parameters<typeof recordFailedWrite>[2], error: unknown) =>
      recordFailedWrite(needs.pool, req, target, error),
  };
  return {
    name: 'admin-settings',
    routes: [...generalSettingsPages(deps), ...securitySettingsPages(deps), ...signingKeysSettingsPages(deps)],
  };
}
