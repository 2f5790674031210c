import { z } from 'zod';
import { iso } from '../common/schemas.js';
import { expirationStrategies, licenseTypes } from '../licenses/licenses.table.js';
import { licenseJson } from '../licenses/licenses.presenter.js';
import type { LicenseRow } from '../licenses/licenses.schema.js';
import type { CustomerCounts, DailyUsage, UsageRequestRow } from './customer-portal.repository.js';

/** The License fields a customer sees. */
export function customerLicenseJson(row: LicenseRow) {
  const full = licenseJson(row);
  return {
    _id: full._id,
    key: full.key,
    product: full.product,
    active: full.active,
    suspended: full.suspended,
    revoked: full.revoked,
    expiresAt: full.expiresAt,
    graceDays: full.graceDays,
    expirationStrategy: full.expirationStrategy,
    licenseType: full.licenseType,
    ipLimit: full.ipLimit,
    hwidLimit: full.hwidLimit,
    usedIps: full.usedIps,
    usedHwids: full.usedHwids,
    ...(full.credits ? { credits: full.credits } : {}),
    /** What the license grants (its own and its policy's): the portal's "Features". */
    entitlements: full.effectiveEntitlements,
  };
}

export const customerStatsJson = (counts: CustomerCounts) => ({
  totalLicenses: counts.total,
  activeLicenses: counts.active,
  expiredLicenses: counts.expired,
  suspendedLicenses: counts.suspended,
  totalRequests: counts.requests,
  successfulRequests: counts.successful,
  byType: { fixed: counts.fixed, trial: counts.trial, consumption: counts.consumption, enterprise: counts.enterprise },
});

/** A license's usage: totals by status, by day, and the latest requests. */
export function licenseUsageJson(usage: { daily: DailyUsage[]; requests: UsageRequestRow[] }) {
  const byStatus = { success: 0, blocked: 0, invalid: 0 };
  const dailyStats: Record<string, { success: number; blocked: number; invalid: number }> = {};
  for (const row of usage.daily) {
    byStatus[row.status] += row.n;
    (dailyStats[row.day] ??= { success: 0, blocked: 0, invalid: 0 })[row.status] += row.n;
  }
  return {
    total: byStatus.success + byStatus.blocked + byStatus.invalid,
    byStatus,
    dailyStats,
    requests: usage.requests.map((row) => ({
      _id: String(row.id),
      ipAddress: row.ip ?? '',
      hwid: row.hwid ?? '',
      status: row.status,
      reason: row.reason,
      createdAt: iso(row.created_at)!,
    })),
  };
}

const count = z.number().int();
const creditsJsonSchema = z.object({ total: count, used: count, remaining: count });

/** The License fields a customer sees, as the customer API answers them. */
export const customerLicenseJsonSchema = z.object({
  _id: z.string(),
  key: z.string(),
  product: z.object({ _id: z.string(), name: z.string() }),
  active: z.boolean(),
  suspended: z.boolean(),
  revoked: z.boolean(),
  expiresAt: z.iso.datetime().nullable(),
  graceDays: count,
  expirationStrategy: z.enum(expirationStrategies),
  licenseType: z.enum(licenseTypes),
  ipLimit: count,
  hwidLimit: count,
  usedIps: z.array(z.string()),
  usedHwids: z.array(z.string()),
  credits: creditsJsonSchema.optional(),
  entitlements: z.array(z.string()),
});

export const customerStatsJsonSchema = z.object({
  totalLicenses: count,
  activeLicenses: count,
  expiredLicenses: count,
  suspendedLicenses: count,
  totalRequests: count,
  successfulRequests: count,
  byType: z.object({ fixed: count, trial: count, consumption: count, enterprise: count }),
});

const byStatus = z.object({ success: count, blocked: count, invalid: count });
export const licenseUsageJsonSchema = z.object({
  total: count,
  byStatus,
  dailyStats: z.record(z.string(), byStatus),
  requests: z.array(
    z.object({
      _id: z.string(),
      ipAddress: z.string(),
      hwid: z.string(),
      status: z.enum(['success', 'blocked', 'invalid']),
      reason: z.string().nullable(),
      createdAt: z.iso.datetime(),
    }),
  ),
});

export { creditsJsonSchema };
