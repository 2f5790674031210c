import { appError } from '../common/error-codes.js';
import type { AdminTokenService } from '../admins/admin-token.service.js';
import type { AdminsService } from '../admins/admins.service.js';
import type { Actor } from '../common/actor.js';
import type { createRuntimeConfigService } from '../runtime-config/runtime-config.service.js';
import type { TwoFactorService } from '../two-factor/two-factor.service.js';
import type { SigningKeysService } from '../signing/signing-keys.service.js';
import { tokenLifetimes, type RateLimitInput, type TokenInput } from './admin-settings.schema.js';

/**
 * What the settings pages do, each through the service the API uses (runtime configuration,
 * admins, API tokens, two-factor, signing keys), so the rules and the audit are the API's.
 */
export function createAdminSettingsService(deps: {
  runtimeConfig: ReturnType<typeof createRuntimeConfigService>;
  admins: AdminsService;
  tokens: AdminTokenService;
  twoFactor: TwoFactorService;
  signingKeys: SigningKeysService;
}) {
  const { runtimeConfig, admins, tokens, twoFactor, signingKeys } = deps;
  return {
    config: () => runtimeConfig.view(),
    setPanicMode: (actor: Actor, enabled: boolean) => runtimeConfig.setPanicMode(actor, enabled),
    saveRateLimits: (actor: Actor, input: RateLimitInput) =>
      runtimeConfig.update(actor, {
        rateLimit: { enabled: input.enabled, max: input.max, windowMs: input.windowSeconds * 1000 },
        userRateLimit: { max: input.userMax, windowMs: input.userWindowSeconds * 1000 },
      }),

    admins: () => admins.list(),
    addAdmin: (actor: Actor, userId: string) => admins.add(actor, userId),
    removeAdmin: (actor: Actor, userId: string) => admins.remove(actor, userId),

    tokens: async () => ({ tokens: await tokens.list(), issuing: tokens.issuing() }),
    issueToken: (actor: Actor, input: TokenInput) =>
      tokens.issue(actor, { label: input.label, ttlSeconds: tokenLifetimes[input.lifetime].seconds }),
    revokeToken: (actor: Actor, tokenId: string) => tokens.revoke(actor, tokenId),

    signingKeys: () => signingKeys.list(),
    rotateSigningKey: (actor: Actor) => signingKeys.rotate(actor),

    twoFactorStatus: async (userId: string, verified: boolean) => ({
      ...(await twoFactor.status(userId, verified)),
      passwordToDisable: twoFactor.passwordToDisable,
    }),
    startTwoFactorSetup: (actor: Actor, label: string) => twoFactor.setup(actor, label),
    pendingTwoFactorSetup: (userId: string, label: string) => twoFactor.pendingSetup(userId, label),
    enableTwoFactor: (actor: Actor, code: string) => twoFactor.enable(actor, code),

    /** Turning two-factor off asks for a current code (or a backup code), and the configured password when there is one. */
    async disableTwoFactor(actor: Actor, code: string, password: string | undefined) {
      if (twoFactor.required) throw appError('TWO_FACTOR_REQUIRED_BY_CONFIG');
      const compact = code.replace(/\s/g, '');
      // This session has verified already (the admin pages are behind the gate): a code it used is fine again.
      await twoFactor.verify(actor, /^\d{6,8}$/.test(compact) ? { token: compact } : { backupCode: code }, true);
      await twoFactor.disable(actor, true, password);
    },
  };
}
export type AdminSettingsService = ReturnType<typeof createAdminSettingsService>;
