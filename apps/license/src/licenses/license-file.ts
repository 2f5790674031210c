import { z } from 'zod';
import { appError } from '../common/error-codes.js';
import type { ResponseSigner } from '../signing/signing.js';
import { licenseTerm, type LicenseTermSource } from './license-term.js';
import { fingerprintSchema } from '../common/fingerprint.js';

export const licenseFileFormat = 'license-file/1';
const dayMs = 86_400_000;

/** The license fields a file carries (admin and customer JSON both have them). */
export interface LicenseFileSource extends LicenseTermSource {
  key: string;
  product: { _id: string; name: string };
  licenseType: string;
  active: boolean;
  suspended: boolean;
  /** The admin's reason, answered beside `License suspended` (as validation does). */
  suspendReason?: string | null;
  revoked: boolean;
  expiresAt: string | null;
  ipLimit: number;
  hwidLimit: number;
  usedHwids: string[];
  /** Its own and its policy's entitlements, sorted. */
  effectiveEntitlements: string[];
}

/** What the application reads once the signature has been checked. */
export interface LicenseFilePayload {
  key: string;
  product: { _id: string; name: string };
  licenseType: string;
  expiresAt: string | null;
  ipLimit: number;
  hwidLimit: number;
  usedHwids: string[];
  /** The entitlements it grants (its own and its policy's), sorted: the client's `hasEntitlement` reads them. */
  entitlements: string[];
  issuedAt: string;
  validUntil: string;
  /** The machine the file is bound to (`?fingerprint=`): the client refuses it on another one. */
  fingerprint?: string;
  /** Issued in the license's grace days: when they end (`validUntil` is no later). */
  graceEndsAt?: string;
  /** Issued to a `maintain` license past its term: it keeps working (`validUntil` is not capped by the expiry). */
  expired?: true;
  /** A floating seat borrowed for this file: its lease ends here, and `validUntil` is not later. */
  borrowedUntil?: string;
}

/** `?fingerprint=F` binds a file to the machine F, which must hold a seat of the license. */
export const licenseFileQuery = z.object({ fingerprint: fingerprintSchema.optional() });

/** The file as the download answers it. */
export const licenseFileJsonSchema = z.object({
  format: z.literal(licenseFileFormat),
  payload: z.string(),
  signature: z.string(),
  keyId: z.string(),
  kid: z.string(),
});

export interface LicenseFile {
  format: typeof licenseFileFormat;
  /** Base64 of the payload's UTF-8 JSON bytes. */
  payload: string;
  /** Base64 Ed25519 signature of those bytes (the decoded payload, not its base64 text). */
  signature: string;
  /** The signing key's id, as GET /api/license/public-key gives it. */
  keyId: string;
  /** The same id under the name `keys[].kid` of GET /api/license/public-key uses (wave 4). */
  kid: string;
}

/**
 * Offline license files, signed with the key that signs validation answers. A file is a
 * validation done ahead of time, so a license that would not validate now (revoked, suspended,
 * inactive, expired past its grace under `revoke`) gets no file: the same 403 answers as validation.
 * In grace the file lasts until the grace ends at most; a `maintain` license past its term gets
 * files as long as the offline period, marked `expired`.
 */
export function licenseFiles(deps: {
  signer: Pick<ResponseSigner, 'sign' | 'keyId'>;
  now: () => Date;
  validDays: number;
}) {
  const { signer, now, validDays } = deps;
  /** Refuses a license that would not validate now, with validation's answers. */
  function check(license: LicenseFileSource): void {
    if (license.revoked) throw appError('LICENSE_REVOKED');
    const reason = license.suspendReason?.trim();
    if (license.suspended) throw appError('LICENSE_SUSPENDED', reason ? { extra: { reason } } : {});
    if (!license.active) throw appError('LICENSE_NOT_ACTIVE');
    if (licenseTerm(license, now()).refused) throw appError('LICENSE_EXPIRED');
  }
  return {
    check,

    /**
     * `fingerprint`: the file is bound to that machine (the caller has checked that it holds a
     * seat). `borrowedUntil`: the seat's lease after borrowing; the file is valid no longer.
     */
    build(license: LicenseFileSource, fingerprint?: string, borrowedUntil?: string): LicenseFile {
      const issuedAt = now();
      check(license);
      const term = licenseTerm(license, issuedAt);
      const ends = [new Date(issuedAt.getTime() + validDays * dayMs)];
      // In grace the file ends with the grace; a `maintain` license past its term is not capped by it.
      const termEnd = term.expired ? null : (term.graceEndsAt ?? term.expiresAt);
      if (termEnd) ends.push(termEnd);
      if (borrowedUntil !== undefined) ends.push(new Date(borrowedUntil));
      const validUntil = new Date(Math.min(...ends.map((end) => end.getTime())));
      const payload: LicenseFilePayload = {
        key: license.key,
        product: { _id: license.product._id, name: license.product.name },
        licenseType: license.licenseType,
        expiresAt: license.expiresAt,
        ipLimit: license.ipLimit,
        hwidLimit: license.hwidLimit,
        usedHwids: license.usedHwids,
        entitlements: license.effectiveEntitlements,
        issuedAt: issuedAt.toISOString(),
        validUntil: validUntil.toISOString(),
        ...(fingerprint !== undefined ? { fingerprint } : {}),
        ...(term.graceEndsAt ? { graceEndsAt: term.graceEndsAt.toISOString() } : {}),
        ...(term.expired ? { expired: true as const } : {}),
        ...(borrowedUntil !== undefined ? { borrowedUntil } : {}),
      };
      const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
      return {
        format: licenseFileFormat,
        payload: bytes.toString('base64'),
        // Read together with the signature: both name the current key.
        signature: signer.sign(bytes),
        keyId: signer.keyId,
        kid: signer.keyId,
      };
    },

    /** `attachment`, named after the key (keys are letters, digits and dashes; anything else becomes `_`). */
    contentDisposition: (license: Pick<LicenseFileSource, 'key'>) =>
      `attachment; filename="${license.key.replace(/[^A-Za-z0-9._-]/g, '_')}.lic.json"`,
  };
}
export type LicenseFiles = ReturnType<typeof licenseFiles>;
