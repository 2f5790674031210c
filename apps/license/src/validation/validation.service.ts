import { appError } from '../common/error-codes.js';
import { verdictCodes } from '../licenses/license-verdicts.js';
import type { EventBus } from '../events/event-bus.js';
import { iso } from '../common/schemas.js';
import { limitErrors, type ValidationRepository, type ValidationRequest } from './validation.repository.js';

/** Validates a key; answers the license on success, throws the failure (400/403, `valid: false`). */
export function createValidationService(deps: { repository: ValidationRepository; events: EventBus }) {
  return async function validateLicense(input: ValidationRequest) {
    const row = await deps.repository.validateAndRecord(input);
    if (!row) throw appError('LICENSE_VALIDATION_NOT_FOUND', { extra: { valid: false } });
    for (const fingerprint of row.lapsed_hwids) {
      await deps.events.emit('MACHINE_LEASE_EXPIRED', { licenseKey: row.key, licenseId: row.id, fingerprint });
    }
    if (row.machine_added) {
      await deps.events.emit('MACHINE_ACTIVATED', {
        licenseKey: row.key,
        licenseId: row.id,
        fingerprint: input.hwid,
        name: null,
        platform: null,
        ip: input.ip,
      });
    }
    if (row.error) {
      if (limitErrors.includes(row.error)) {
        await deps.events.emit('NEW_REQUEST_BLOCKED', {
          licenseKey: row.key,
          licenseId: row.id,
          reason: row.error,
          ip: input.ip,
          hwid: input.hwid,
          blockedCount: row.violation_count ?? 0,
        });
      }
      // The admin's reason is for whoever validates ("shown to whoever validates the license", the
      // suspend form says): `reason` beside the spec's exact `error`, only when one was given.
      const reason = row.error === 'License suspended' ? await deps.repository.suspendReason(row.id) : null;
      const details =
        row.error === 'Entitlement missing' ? { details: { missing: row.missing_entitlements ?? [] } } : {};
      // The text is the function's own, so the answer is its verdict even if the catalogue lagged behind.
      throw appError(verdictCodes[row.error] ?? 'LICENSE_NOT_ACTIVE', {
        message: row.error,
        extra: reason ? { valid: false, reason } : { valid: false },
        ...details,
      });
    }
    return {
      key: row.key,
      productId: row.product_id,
      active: row.active,
      expiresAt: iso(row.expires_at),
      ipLimit: row.ip_limit,
      hwidLimit: row.hwid_limit,
      usedIps: row.used_ips,
      usedHwids: row.used_hwids,
      licenseType: row.license_type,
      ...(row.license_type === 'consumption'
        ? {
            credits: {
              total: row.credits_total,
              used: row.credits_used,
              remaining: Math.max(0, row.credits_total - row.credits_used),
            },
          }
        : {}),
      entitlements: row.entitlements ?? [],
      policy: row.policy_id ? { _id: row.policy_id, name: row.policy_name ?? '' } : null,
      // Only when they apply: a license that sets no grace and no strategy answers as before.
      ...(row.grace_ends_at ? { graceEndsAt: iso(row.grace_ends_at)! } : {}),
      ...(row.expired ? { expired: true as const } : {}),
    };
  };
}
