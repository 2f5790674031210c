import type { ExpirationStrategy } from './licenses.table.js';

const dayMs = 86_400_000;

/** The fields of a license that decide the end of its term (admin and customer JSON both have them). */
export interface LicenseTermSource {
  expiresAt: string | null;
  graceDays: number;
  expirationStrategy: ExpirationStrategy;
}

/**
 * Where a license stands against its expiry at `now`, by validation's rule (validate-batch.sql):
 * the term ends `graceDays` whole days after `expiresAt`; in between it is in grace (`graceEndsAt`);
 * past the term `revoke` refuses (`refused`) and `maintain` keeps working (`expired`).
 */
export function licenseTerm(license: LicenseTermSource, now: Date) {
  if (license.expiresAt === null) return { expiresAt: null, graceEndsAt: null, expired: false, refused: false };
  const expiresAt = new Date(license.expiresAt);
  const termEnd = new Date(expiresAt.getTime() + license.graceDays * dayMs);
  const past = termEnd <= now;
  return {
    expiresAt,
    graceEndsAt: expiresAt <= now && !past ? termEnd : null,
    expired: past && license.expirationStrategy === 'maintain',
    refused: past && license.expirationStrategy === 'revoke',
  };
}
