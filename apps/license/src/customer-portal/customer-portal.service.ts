import type pg from 'pg';
import { appError } from '../common/error-codes.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import type { OfflineFilesService } from '../machines/offline-files.service.js';
import { creditsOf, usageStatsJson } from '../licenses/licenses.presenter.js';
import {
  licenseOfCustomer,
  licensesOfCustomer,
  type LicenseBinding,
  type LicensesService,
} from '../licenses/licenses.service.js';
import type { MachinesService } from '../machines/machines.service.js';
import { customerLicenseJson, customerStatsJson, licenseUsageJson } from './customer-portal.presenter.js';
import { entitlementNames } from '../entitlements/entitlements.service.js';
import * as usage from '../usage/usage.service.js';
import * as repo from './customer-portal.repository.js';

const notFound = () => appError('LICENSE_NOT_FOUND');
const maxRequests = 1000;
const defaultRangeDays = 30;
const day = 86_400_000;
/** Usage records per page of the license page. */
export const recordsPerPage = 25;

/** What the license page asks for: the chart's days, the records' date bounds (UTC dates, `to` included) and page. */
export interface LicensePageQuery {
  days: number;
  from?: string;
  to?: string;
  page: number;
}

const utcMidnight = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));

export interface CustomerPortalServiceDeps {
  pool: pg.Pool;
  now: () => Date;
  /** Releases change the license through the licenses feature (its repository writes the table). */
  licenses: LicensesService;
  /** A license's machines (the license page lists them, the customer's own licenses only). */
  machines: Pick<MachinesService, 'list'>;
  /** Offline files and air-gapped activation, under the floating-seat rules. */
  offline: Pick<OfflineFilesService, 'download' | 'activateOffline'>;
  releasesPerDay: number;
}

export function createCustomerPortalService(deps: CustomerPortalServiceDeps) {
  const { pool, now } = deps;
  const ownLicense = async (customerId: string, licenseId: string) => {
    const row = isUuid(licenseId) ? await licenseOfCustomer(pool, customerId, licenseId) : undefined;
    if (!row) throw notFound();
    return row;
  };

  return {
    /**
     * The spec's list route carries a license id segment yet answers every license of the
     * signed-in customer (a customer without licenses gets []). The segment selects nothing,
     * except that naming another customer's license answers 404, as every customer route does.
     */
    async list(customerId: string, licenseId: string) {
      if (isUuid(licenseId) && (await repo.isOtherCustomersLicense(pool, customerId, licenseId))) throw notFound();
      return (await licensesOfCustomer(pool, customerId)).map(customerLicenseJson);
    },

    async detail(customerId: string, licenseId: string) {
      const row = await ownLicense(customerId, licenseId);
      const license = customerLicenseJson(row);
      return {
        ...license,
        product: { ...license.product, description: row.product_description },
        usageStats: usageStatsJson(await usage.usageStatsOfLicense(pool, row.id)),
      };
    },

    async usage(customerId: string, licenseId: string, range: { startDate?: Date; endDate?: Date }) {
      await ownLicense(customerId, licenseId);
      const end = range.endDate ?? now();
      const start = range.startDate ?? new Date(end.getTime() - defaultRangeDays * 86_400_000);
      if (start > end) throw appError('VALIDATION_FAILED', { details: { startDate: 'Must not be after endDate' } });
      return licenseUsageJson(await repo.licenseUsage(pool, customerId, licenseId, { start, end, maxRequests }));
    },

    /** The list page: every license of this customer, and the time its expiries are counted from. */
    async licensesPage(customerId: string) {
      return { licenses: await licensesOfCustomer(pool, customerId), now: now() };
    },

    /**
     * The license page: the license, validations per day for the chart (the last `days` UTC days,
     * today included), one page of its records within the date filter, when each IP and
     * hardware id it holds was first and last seen, its machines, and the names of what it grants.
     */
    async licensePage(customerId: string, licenseId: string, query: LicensePageQuery) {
      const license = await ownLicense(customerId, licenseId);
      const at = now();
      const chartEnd = new Date(utcMidnight(at).getTime() + day);
      const chartStart = new Date(chartEnd.getTime() - query.days * day);
      const from = query.from ? new Date(`${query.from}T00:00:00Z`) : undefined;
      // `to` is a whole day: records up to its end.
      const to = query.to ? new Date(Date.parse(`${query.to}T00:00:00Z`) + day) : undefined;
      // The chart holds every validation committed before the request (queued ones folded first).
      await usage.foldUsageRollups(pool, at, true);
      const [daily, firstPage, devices, machines, featureNames] = await Promise.all([
        usage.dailyOutcomesOfCustomerLicense(pool, customerId, licenseId, { from: chartStart, to: chartEnd }),
        usage.usageRecordsOfCustomerLicense(pool, customerId, licenseId, {
          from,
          to,
          limit: recordsPerPage,
          offset: (query.page - 1) * recordsPerPage,
        }),
        usage.deviceSightingsOfCustomerLicense(pool, customerId, licenseId),
        deps.machines.list(license.id, customerId),
        entitlementNames(pool, [...license.own_entitlements, ...license.policy_entitlements]),
      ]);
      const pages = Math.max(1, Math.ceil(firstPage.total / recordsPerPage));
      // A page past the end (the filter narrowed, say) shows the last one instead of nothing.
      const page = Math.min(query.page, pages);
      const records =
        page === query.page
          ? firstPage
          : await usage.usageRecordsOfCustomerLicense(pool, customerId, licenseId, {
              from,
              to,
              limit: recordsPerPage,
              offset: (page - 1) * recordsPerPage,
            });
      return {
        license,
        now: at,
        devices,
        machines,
        featureNames,
        chart: { start: chartStart, days: query.days, daily },
        records: { rows: records.rows, total: records.total, page, pages },
      };
    },

    stats: async (customerId: string) => customerStatsJson(await repo.customerStats(pool, customerId, now())),

    async credits(customerId: string, licenseId: string) {
      const row = await ownLicense(customerId, licenseId);
      if (row.license_type !== 'consumption') throw appError('LICENSE_NOT_CONSUMPTION');
      return creditsOf(row);
    },

    /** Takes an IP or hardware id off a license of mine (limited per day, audited). */
    release: async (actor: Actor, customerId: string, licenseId: string, binding: LicenseBinding) =>
      customerLicenseJson(await deps.licenses.release(actor, customerId, licenseId, binding, deps.releasesPerDay)),

    /** A signed offline file of a license of mine, and its Content-Disposition. */
    file: (customerId: string, licenseId: string, fingerprint?: string) =>
      deps.offline.download({ customerId }, licenseId, fingerprint),

    /** An air-gapped machine of a license of mine takes a seat from its request code; audited. */
    activateOffline: (actor: Actor, customerId: string, licenseId: string, requestCode: string) =>
      deps.offline.activateOffline(actor, { customerId }, licenseId, requestCode),
  };
}
