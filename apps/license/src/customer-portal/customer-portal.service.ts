import type pg from 'pg';
import { HttpError } from '@app/http';
import { isUuid } from '../common/schemas.js';
import { creditsOf, licenseJson, usageStats, type LicenseRow } from '../licenses/licenses.repository.js';
import * as repo from './customer-portal.repository.js';

const notFound = () => HttpError.notFound('License not found');
const maxRequests = 1000;
const defaultRangeDays = 30;

/** The License fields a customer sees. */
function customerLicense(row: LicenseRow) {
  const full = licenseJson(row);
  return {
    _id: full._id, key: full.key, product: full.product, active: full.active, suspended: full.suspended, revoked: full.revoked,
    expiresAt: full.expiresAt, licenseType: full.licenseType, ipLimit: full.ipLimit, hwidLimit: full.hwidLimit,
    usedIps: full.usedIps, usedHwids: full.usedHwids, ...(full.credits ? { credits: full.credits } : {}),
  };
}

export function customerPortalService(deps: { pool: pg.Pool; now: () => Date }) {
  const { pool, now } = deps;
  const ownLicense = async (customerId: string, licenseId: string) => {
    const row = isUuid(licenseId) ? await repo.findCustomerLicense(pool, customerId, licenseId) : undefined;
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
      return (await repo.listCustomerLicenses(pool, customerId)).map(customerLicense);
    },

    async detail(customerId: string, licenseId: string) {
      const row = await ownLicense(customerId, licenseId);
      const license = customerLicense(row);
      return { ...license, product: { ...license.product, description: row.product_description }, usageStats: await usageStats(pool, row.id) };
    },

    async usage(customerId: string, licenseId: string, range: { startDate?: Date; endDate?: Date }) {
      await ownLicense(customerId, licenseId);
      const end = range.endDate ?? now();
      const start = range.startDate ?? new Date(end.getTime() - defaultRangeDays * 86_400_000);
      if (start > end) throw HttpError.badRequest('Validation failed', { startDate: 'Must not be after endDate' });
      return repo.licenseUsage(pool, customerId, licenseId, { start, end, maxRequests });
    },

    stats: (customerId: string) => repo.customerStats(pool, customerId, now()),

    async credits(customerId: string, licenseId: string) {
      const row = await ownLicense(customerId, licenseId);
      if (row.license_type !== 'consumption') throw HttpError.badRequest('License is not a consumption-based license');
      return creditsOf(row);
    },
  };
}
