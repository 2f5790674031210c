import { HttpError } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import { iso } from '../common/schemas.js';
import { limitErrors, type ValidationRepository, type ValidationRequest } from './validation.repository.js';

/** Validates a key; answers the license on success, throws the failure (400/403, `valid: false`). */
export function validationService(deps: { repository: ValidationRepository; events: EventBus }) {
  return async function validateLicense(input: ValidationRequest) {
    const row = await deps.repository.validateAndRecord(input);
    if (!row) throw new HttpError(400, 'License not found', undefined, { valid: false });
    if (row.error) {
      if (limitErrors.includes(row.error)) {
        await deps.events.emit('NEW_REQUEST_BLOCKED', {
          licenseKey: row.key, licenseId: row.id, reason: row.error, ip: input.ip, hwid: input.hwid,
          blockedCount: row.violation_count ?? 0,
        });
      }
      throw new HttpError(403, row.error, undefined, { valid: false });
    }
    return {
      key: row.key,
      active: row.active,
      expiresAt: iso(row.expires_at),
      ipLimit: row.ip_limit,
      hwidLimit: row.hwid_limit,
      usedIps: row.used_ips,
      usedHwids: row.used_hwids,
      licenseType: row.license_type,
      ...(row.license_type === 'consumption'
        ? { credits: { total: row.credits_total, used: row.credits_used, remaining: Math.max(0, row.credits_total - row.credits_used) } }
        : {}),
    };
  };
}
