import type pg from 'pg';
import type { SettingsStore } from '@app/settings';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import type { ConfigPatch, LicenseSettings } from './runtime-config.schema.js';

/**
 * The runtime configuration an admin reads and changes. The settings store has its own
 * transaction, so the audit entry follows the change right after it.
 */
export function createRuntimeConfigService(deps: {
  pool: pg.Pool;
  settings: SettingsStore<LicenseSettings>;
  effectiveRateLimit: () => { enabled: boolean; windowMs: number; max: number };
}) {
  const { pool, settings } = deps;
  const view = () => ({
    security: settings.get().security,
    rateLimit: deps.effectiveRateLimit(),
    userRateLimit: settings.get().userRateLimit,
    stored: settings.get(),
  });
  const apply = async (actor: Actor, patch: ConfigPatch) => {
    const before = settings.get();
    const after = await settings.update({
      security: { ...before.security, ...patch.security },
      rateLimit: { ...before.rateLimit, ...patch.rateLimit },
      userRateLimit: { ...before.userRateLimit, ...patch.userRateLimit },
    });
    const action =
      patch.security?.panicMode !== undefined && patch.security.panicMode !== before.security.panicMode
        ? patch.security.panicMode
          ? 'suspend'
          : 'activate'
        : 'update';
    await recordAudit(pool, actor, { action, resourceType: 'system', resourceId: 'config', before, after });
  };
  const panicMode = () => settings.get().security.panicMode;
  return {
    view,
    async update(actor: Actor, patch: ConfigPatch) {
      await apply(actor, patch);
      return view();
    },
    panicMode,
    async setPanicMode(actor: Actor, enabled: boolean) {
      await apply(actor, { security: { panicMode: enabled } });
      return panicMode();
    },
  };
}

export type RuntimeConfigService = ReturnType<typeof createRuntimeConfigService>;
