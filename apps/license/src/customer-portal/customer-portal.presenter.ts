import { iso } from '../common/schemas.js';
import { licenseJson } from '../licenses/licenses.presenter.js';
import type { LicenseRow } from '../licenses/licenses.repository.js';
import type { CustomerCounts, DailyUsage, UsageRequestRow } from './customer-portal.repository.js';

/** The License fields a customer sees. */
export function customerLicenseJson(row: LicenseRow) {
  const full = licenseJson(row);
  return {
    _id: full._id, key: full.key, product: full.product, active: full.active, suspended: full.suspended, revoked: full.revoked,
    expiresAt: full.expiresAt, licenseType: full.licenseType, ipLimit: full.ipLimit, hwidLimit: full.hwidLimit,
    usedIps: full.usedIps, usedHwids: full.usedHwids, ...(full.credits ? { credits: full.credits } : {}),
  };
}

export const customerStatsJson = (counts: CustomerCounts) => ({
  totalLicenses: counts.total, activeLicenses: counts.active, expiredLicenses: counts.expired, suspendedLicenses: counts.suspended,
  totalRequests: counts.requests, successfulRequests: counts.successful,
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
      _id: String(row.id), ipAddress: row.ip ?? '', hwid: row.hwid ?? '', status: row.status, reason: row.reason, createdAt: iso(row.created_at)!,
    })),
  };
}
