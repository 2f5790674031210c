import { z } from 'zod';
import { appError } from '../common/error-codes.js';
import type { ResponseSigner } from '../validation/signing.js';
import { fingerprintSchema } from './machines.schema.js';

export const licenseFileFormat = 'license-file/1';
const dayMs = 86_400_000;

/** The license fields a file carries (admin and customer JSON both have them). */
export interface LicenseFileSource {
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
}

/** `?fingerprint=F` binds a file to the machine F, which must hold a seat of the license. */
export const licenseFileQuery = z.object({ fingerprint: fingerprintSchema.optional() });

/** The file as the download answers it. */
export const licenseFileJsonSchema = z.object({
  format: z.literal(licenseFileFormat),
  payload: z.string(),
  signature: z.string(),
  keyId: z.string(),
});

export interface LicenseFile {
  format: typeof licenseFileFormat;
  /** Base64 of the payload's UTF-8 JSON bytes. */
  payload: string;
  /** Base64 Ed25519 signature of those bytes (the decoded payload, not its base64 text). */
  signature: string;
  /** The signing key's id, as GET /api/license/public-key gives it. */
  keyId: string;
}

/**
 * Offline license files, signed with the key that signs validation answers. A file is a
 * validation done ahead of time, so a license that would not validate now (revoked, suspended,
 * inactive, expired) gets no file: the same 403 answers as validation.
 */
export function licenseFiles(deps: {
  signer: Pick<ResponseSigner, 'sign' | 'keyId'>;
  now: () => Date;
  validDays: number;
}) {
  const { signer, now, validDays } = deps;
  return {
    /** `fingerprint`: the file is bound to that machine (the caller has checked that it holds a seat). */
    build(license: LicenseFileSource, fingerprint?: string): LicenseFile {
      const issuedAt = now();
      if (license.revoked) throw appError('LICENSE_REVOKED');
      const reason = license.suspendReason?.trim();
      if (license.suspended) throw appError('LICENSE_SUSPENDED', reason ? { extra: { reason } } : {});
      if (!license.active) throw appError('LICENSE_NOT_ACTIVE');
      const expiresAt = license.expiresAt === null ? null : new Date(license.expiresAt);
      if (expiresAt && expiresAt <= issuedAt) throw appError('LICENSE_EXPIRED');
      const offlineEnd = new Date(issuedAt.getTime() + validDays * dayMs);
      const validUntil = expiresAt && expiresAt < offlineEnd ? expiresAt : offlineEnd;
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
      };
      const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
      return {
        format: licenseFileFormat,
        payload: bytes.toString('base64'),
        signature: signer.sign(bytes),
        keyId: signer.keyId,
      };
    },

    /** `attachment`, named after the key (keys are letters, digits and dashes; anything else becomes `_`). */
    contentDisposition: (license: Pick<LicenseFileSource, 'key'>) =>
      `attachment; filename="${license.key.replace(/[^A-Za-z0-9._-]/g, '_')}.lic.json"`,
  };
}
export type LicenseFiles = ReturnType<typeof licenseFiles>;
