import type { Queryable } from '@app/db';
import type { SettingsStore } from '@app/settings';
import type { CustomerRecord } from '../common/request.js';
import type { LicenseJson } from '../licenses/licenses.presenter.js';
import type { createLicensesService } from '../licenses/licenses.service.js';
import { isPanicMode } from '../panic/panic.js';
import type { AnalyticsService } from '../analytics/analytics.service.js';
import type { LicenseSettings } from '../runtime-config/runtime-config.schema.js';
import { dashboardCounts, type DashboardReads } from './dashboard-counts.js';

export type LicenseState = 'active' | 'suspended' | 'revoked' | 'expired' | 'inactive';

/** A license as a dashboard table row shows it (the same fields for admins and customers). */
export interface LicenseRowView {
  key: string;
  product: string;
  type: string;
  state: LicenseState;
  expiresAt: string | null;
  ips: { used: number; limit: number };
  hwids: { used: number; limit: number };
  credits: { total: number; used: number; remaining: number } | null;
}

/** The state that decides validation, worst first: revoked and suspended outrank an expiry date. */
export function licenseState(
  license: Pick<LicenseJson, 'active' | 'suspended' | 'revoked' | 'expiresAt'>,
  now: Date,
): LicenseState {
  if (license.revoked) return 'revoked';
  if (license.suspended) return 'suspended';
  if (license.expiresAt && Date.parse(license.expiresAt) <= now.getTime()) return 'expired';
  return license.active ? 'active' : 'inactive';
}

const rowView = (license: LicenseJson, now: Date): LicenseRowView => ({
  key: license.key,
  product: license.product.name,
  type: license.licenseType,
  state: licenseState(license, now),
  expiresAt: license.expiresAt,
  ips: { used: license.usedIps.length, limit: license.ipLimit },
  hwids: { used: license.usedHwids.length, limit: license.hwidLimit },
  credits: license.credits,
});

export type Visitor = { kind: 'admin' } | { kind: 'customer'; customer: CustomerRecord } | { kind: 'none' };

/** Read-only: what the page at `/` shows admins (a customer's page is the customer portal's). Writes go through the existing APIs from the page script. */
export function createDashboardService(deps: {
  reads: Queryable;
  /** The headline figures, read through the features that own them. */
  figures: DashboardReads;
  settings: SettingsStore<LicenseSettings>;
  now: () => Date;
  licenses: ReturnType<typeof createLicensesService>;
  /** The daily rollups: the charts of the last 30 days. */
  analytics: Pick<AnalyticsService, 'validations' | 'top'>;
  /** The admins' and customers' services answer who a user is. */
  isAdmin: (userId: string) => Promise<boolean>;
  findCustomer: (userId: string) => Promise<CustomerRecord | undefined>;
}) {
  const { reads, now } = deps;
  return {
    panicMode: () => isPanicMode(deps.settings),

    /** An admin record wins over a customer record with the same user id. */
    async visitor(userId: string): Promise<Visitor> {
      if (await deps.isAdmin(userId)) return { kind: 'admin' };
      const customer = await deps.findCustomer(userId);
      return customer ? { kind: 'customer', customer } : { kind: 'none' };
    },

    async adminOverview(recentLimit = 20) {
      const at = now();
      const [counts, recent, validations, top] = await Promise.all([
        dashboardCounts(deps.figures, reads, at),
        deps.licenses.list({
          limit: recentLimit,
          skip: 0,
          active: undefined,
          suspended: undefined,
          revoked: undefined,
          expired: undefined,
        }),
        deps.analytics.validations({}),
        deps.analytics.top({}, 5),
      ]);
      const keys = await Promise.all(top.licenses.map((entry) => deps.licenses.find({ licenseId: entry.license_id })));
      return {
        counts,
        insight: {
          days: validations.days,
          top: top.licenses.map((entry, index) => ({ ...entry, key: keys[index]?.key ?? null })),
        },
        recent: recent.licenses.map((license) => rowView(license, at)),
        panicMode: isPanicMode(deps.settings),
      };
    },
  };
}
export type DashboardService = ReturnType<typeof createDashboardService>;
