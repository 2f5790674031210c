import { z } from 'zod';
import { iso } from '../common/schemas.js';
import { expirationStrategies, licenseTypes } from './licenses.table.js';
import type { LicenseUsageStats } from '../usage/usage.service.js';
import type { MemberRow } from './licenses.repository.js';
import type { LicenseRow } from './licenses.schema.js';

// Rows → the API's JSON, with the specification's field names (`_id`, camelCase, ISO dates).

export const creditsOf = (row: Pick<LicenseRow, 'credits_total' | 'credits_used'>) => ({
  total: row.credits_total,
  used: row.credits_used,
  remaining: Math.max(0, row.credits_total - row.credits_used),
});

/** The License resource of the specification, plus the admin-side fields. */
export function licenseJson(row: LicenseRow) {
  return {
    _id: row.id,
    key: row.key,
    product: { _id: row.product_id, name: row.product_name },
    // A customer always has a name; the row's null is the LEFT JOIN's, when there is no customer.
    customer:
      row.customer_id && row.customer_name !== null
        ? { _id: row.customer_id, name: row.customer_name, email: row.customer_email }
        : null,
    parent: row.parent_id,
    licenseType: row.license_type,
    active: row.active,
    suspended: row.suspended,
    suspendReason: row.suspend_reason,
    revoked: row.revoked,
    revokeReason: row.revoke_reason,
    expiresAt: iso(row.expires_at),
    ipLimit: row.ip_limit,
    hwidLimit: row.hwid_limit,
    heartbeatSeconds: row.heartbeat_seconds,
    graceDays: row.grace_days,
    expirationStrategy: row.expiration_strategy,
    borrowHours: row.borrow_hours,
    /** Its own limit (null: its policy's, `effectiveSharingAddressLimit`). */
    sharingAddressLimit: row.sharing_address_limit,
    effectiveSharingAddressLimit: row.sharing_address_limit ?? row.policy_sharing_address_limit,
    /** Flagged for key sharing today or yesterday (UTC). */
    sharingSuspected: row.sharing_suspected,
    usedIps: row.used_ips,
    usedHwids: row.used_hwids,
    credits: row.license_type === 'consumption' ? creditsOf(row) : null,
    convertToType: row.convert_to_type,
    autoConvert: row.auto_convert,
    convertDurationDays: row.convert_duration_days,
    convertedAt: iso(row.converted_at),
    violationCount: row.violation_count,
    lastValidatedAt: iso(row.last_validated_at),
    metadata: row.metadata,
    policy: row.policy_id ? { _id: row.policy_id, name: row.policy_name ?? '' } : null,
    /** Its own entitlements; `effectiveEntitlements` adds its policy's, as validation reads them. */
    entitlements: row.own_entitlements,
    effectiveEntitlements: [...new Set([...row.own_entitlements, ...row.policy_entitlements])].sort(),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
export type LicenseJson = ReturnType<typeof licenseJson>;

export const memberJson = (row: MemberRow) => ({
  _id: row.id,
  email: row.email,
  userId: row.user_id,
  role: row.role,
  createdAt: iso(row.created_at)!,
});
export type MemberJson = ReturnType<typeof memberJson>;

/** The `usageStats` of a license detail. */
export const usageStatsJson = (counts: LicenseUsageStats) => ({
  totalRequests: counts.total,
  successfulRequests: counts.success,
  blockedRequests: counts.blocked,
  uniqueIPs: counts.ips,
  uniqueHWIDs: counts.hwids,
  lastUsed: iso(counts.last),
});

const isoOrNull = z.iso.datetime().nullable();
const creditsJsonSchema = z.object({ total: z.number().int(), used: z.number().int(), remaining: z.number().int() });

/** The License resource as the admin API answers it (the schema the tests hold every answer to). */
export const licenseJsonSchema = z.object({
  _id: z.string(),
  key: z.string(),
  product: z.object({ _id: z.string(), name: z.string() }),
  customer: z.object({ _id: z.string(), name: z.string(), email: z.string().nullable() }).nullable(),
  parent: z.string().nullable(),
  licenseType: z.enum(licenseTypes),
  active: z.boolean(),
  suspended: z.boolean(),
  suspendReason: z.string().nullable(),
  revoked: z.boolean(),
  revokeReason: z.string().nullable(),
  expiresAt: isoOrNull,
  ipLimit: z.number().int(),
  hwidLimit: z.number().int(),
  heartbeatSeconds: z.number().int().nullable(),
  graceDays: z.number().int(),
  expirationStrategy: z.enum(expirationStrategies),
  borrowHours: z.number().int(),
  sharingAddressLimit: z.number().int().nullable(),
  effectiveSharingAddressLimit: z.number().int().nullable(),
  sharingSuspected: z.boolean(),
  usedIps: z.array(z.string()),
  usedHwids: z.array(z.string()),
  credits: creditsJsonSchema.nullable(),
  convertToType: z.enum(licenseTypes).nullable(),
  autoConvert: z.boolean(),
  convertDurationDays: z.number().int().nullable(),
  convertedAt: isoOrNull,
  violationCount: z.number().int(),
  lastValidatedAt: isoOrNull,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  policy: z.object({ _id: z.string(), name: z.string() }).nullable(),
  entitlements: z.array(z.string()),
  effectiveEntitlements: z.array(z.string()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** One license read by id: the resource plus its product's description, members and usage totals. */
export const licenseDetailJsonSchema = licenseJsonSchema.extend({
  product: z.object({ _id: z.string(), name: z.string(), description: z.string().nullable() }),
  members: z.array(
    z.object({
      _id: z.string(),
      email: z.string().nullable(),
      userId: z.string().nullable(),
      role: z.string(),
      createdAt: z.iso.datetime(),
    }),
  ),
  usageStats: z.object({
    totalRequests: z.number().int(),
    successfulRequests: z.number().int(),
    blockedRequests: z.number().int(),
    uniqueIPs: z.number().int(),
    uniqueHWIDs: z.number().int(),
    lastUsed: isoOrNull,
  }),
});
