import type { Request } from 'express';
import { appError, errorCodes } from '../common/error-codes.js';
import type { AdminRecord } from '../common/request.js';
import type { TwoFactorService } from './two-factor.service.js';
import { isSessionVerified } from './two-factor.session.js';

export const VERIFICATION_REQUIRED = errorCodes.TWO_FACTOR_VERIFICATION_REQUIRED.message;

/**
 * The `twoFactorGate` of requireAdmin: an admin session grants nothing but the two-factor
 * routes until it has verified a code (or, when the configuration requires two-factor, until
 * the admin has set it up and verified). Bearer tokens never reach the gate.
 */
export function createTwoFactorGate(service: TwoFactorService) {
  return async (admin: AdminRecord, req: Request): Promise<void> => {
    if (isSessionVerified(req, admin.userId)) return;
    const pending = await service.pending(admin.userId);
    if (!pending) return;
    throw appError('TWO_FACTOR_VERIFICATION_REQUIRED', {
      extra: {
        twoFactor: pending === 'verify' ? 'verify' : 'setup',
        next: pending === 'verify' ? 'POST /api/2fa/verify' : 'GET /api/2fa/setup',
      },
    });
  };
}
