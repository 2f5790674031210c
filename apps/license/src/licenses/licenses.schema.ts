import type { RowOf } from '@app/db';
import { z } from 'zod';
import { isoDate, paging, queryFilterBoolean, uuidString } from '../common/schemas.js';
import { entitlementCodes } from '../entitlements/entitlements.schema.js';
import { expirationStrategies, licenses, licenseTypes, memberRoles } from './licenses.table.js';

/** A license with the names the admin views show beside it (`licenseSelect`); the customer portal reads them too. */
export type LicenseRow = RowOf<typeof licenses> & {
  product_name: string;
  product_description: string;
  product_prefix: string;
  customer_name: string | null;
  customer_email: string | null;
  /** Its policy's name and entitlement codes; its own codes (each list sorted). */
  policy_name: string | null;
  policy_entitlements: string[];
  own_entitlements: string[];
  /** Its policy's sharing limit (the license's own null falls back to it). */
  policy_sharing_address_limit: number | null;
  /** Flagged for key sharing today or yesterday (UTC): license_sharing_flags. */
  sharing_suspected: boolean;
};

/** A license as the scheduled scans see it (the jobs feature claims some itself). */
export type ScannedLicense = Pick<
  RowOf<typeof licenses>,
  'id' | 'key' | 'expires_at' | 'customer_id' | 'product_id' | 'license_type'
>;

const limit = z.number().int().min(0).max(1_000_000);
const member = z.object({
  email: z.email().max(320),
  userId: z.string().trim().min(1).max(200).optional(),
  role: z.enum(memberRoles).default('member'),
});
const expiresAt = z.union([isoDate(), z.null()]);
/** Floating seats: a machine not seen for more than this many whole seconds holds no seat. */
const heartbeatSeconds = z.number().int().min(10).max(86_400).nullable();
/** Days after `expiresAt` that validation still succeeds; what happens after it (wave 4). */
export const graceDays = z.number().int().min(0).max(90);
export const expirationStrategy = z.enum(expirationStrategies);
/** Floating seats: an offline file borrows its machine's seat for this many hours (0: no files). */
const borrowHours = z.number().int().min(0).max(720);
/** Key sharing: more distinct addresses in a UTC day than this raises LICENSE_SHARING_SUSPECTED (null: the policy's). */
const sharingAddressLimit = z.number().int().min(1).max(1_000_000).nullable();
// Members are keyed by email (case-insensitively) per license: one entry per email.
const members = z
  .array(member)
  .max(10_000)
  .refine(
    (list) => new Set(list.map((entry) => entry.email.toLowerCase())).size === list.length,
    'Each email may appear only once',
  );

/**
 * Left out, `licenseType`, the limits, `heartbeatSeconds`, `graceDays`, `expirationStrategy`, `credits` and `expiresAt` come from the
 * policy (`policyId`) when it sets them, else from the defaults (fixed, unlimited, no expiry).
 * `product` may be left out with a policy: it is the policy's.
 */
export const createLicenseSchema = z
  .object({
    product: uuidString().optional(),
    policyId: uuidString().optional(),
    customer: uuidString().optional(),
    licenseType: z.enum(licenseTypes).optional(),
    expiresAt: expiresAt.optional(),
    ipLimit: limit.optional(),
    hwidLimit: limit.optional(),
    heartbeatSeconds: heartbeatSeconds.optional(),
    graceDays: graceDays.optional(),
    expirationStrategy: expirationStrategy.optional(),
    borrowHours: borrowHours.optional(),
    sharingAddressLimit: sharingAddressLimit.optional(),
    credits: z.number().int().min(0).max(1_000_000_000).optional(),
    parent: uuidString().optional(),
    active: z.boolean().default(true),
    convertToType: z.enum(['fixed', 'consumption', 'enterprise']).optional(),
    autoConvert: z.boolean().default(false),
    convertDurationDays: z.number().int().min(1).max(36_500).optional(),
    members: members.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    /** Its own entitlement codes (besides its policy's). */
    entitlements: entitlementCodes.optional(),
  })
  .superRefine((value, context) => {
    if (!value.product && !value.policyId)
      context.addIssue({ code: 'custom', path: ['product'], message: 'Required (or a policyId)' });
  });

export const updateLicenseSchema = z
  .object({
    customer: uuidString().nullable().optional(),
    licenseType: z.enum(licenseTypes).optional(),
    expiresAt: expiresAt.optional(),
    ipLimit: limit.optional(),
    hwidLimit: limit.optional(),
    heartbeatSeconds: heartbeatSeconds.optional(),
    graceDays: graceDays.optional(),
    expirationStrategy: expirationStrategy.optional(),
    borrowHours: borrowHours.optional(),
    sharingAddressLimit: sharingAddressLimit.optional(),
    credits: z.number().int().min(0).max(1_000_000_000).optional(),
    parent: uuidString().nullable().optional(),
    active: z.boolean().optional(),
    convertToType: z.enum(['fixed', 'consumption', 'enterprise']).nullable().optional(),
    autoConvert: z.boolean().optional(),
    convertDurationDays: z.number().int().min(1).max(36_500).nullable().optional(),
    members: members.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    /** Another policy of the license's product (its limits are not copied), or null for none. */
    policyId: uuidString().nullable().optional(),
    entitlements: entitlementCodes.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'Nothing to update');

export const listLicensesQuery = z.object({
  product: uuidString().optional(),
  customer: uuidString().optional(),
  parent: uuidString().optional(),
  licenseType: z.enum(licenseTypes).optional(),
  active: queryFilterBoolean(),
  suspended: queryFilterBoolean(),
  revoked: queryFilterBoolean(),
  expired: queryFilterBoolean(),
  search: z.string().max(200).optional(),
  /** Not expired yet, and expiring within this many days from now. */
  expiresWithinDays: z.coerce.number().int().min(0).max(36_500).optional(),
  /** The `nextCursor` of the page before: continues after its last row (keyset; `skip` then counts from there). */
  cursor: z.string().max(200).optional(),
  ...paging(50, 1000),
});

export const keySchema = z.object({ key: z.string().min(1).max(200) });
export const reasonSchema = z.object({ reason: z.string().max(1000).optional() });

export type CreateLicense = z.infer<typeof createLicenseSchema>;
export type UpdateLicense = z.infer<typeof updateLicenseSchema>;
export type ListLicenses = z.infer<typeof listLicensesQuery>;
export type LicenseMemberInput = z.infer<typeof member>;
