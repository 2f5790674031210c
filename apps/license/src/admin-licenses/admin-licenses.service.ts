import type pg from 'pg';
import type { AuditService } from '../audit/audit.service.js';
import type { CustomersService } from '../customers/customers.service.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import type { ListLicenses } from '../licenses/licenses.schema.js';
import type { MachinesService } from '../machines/machines.service.js';
import type { ProductsService } from '../products/products.service.js';
import type { PoliciesService } from '../policies/policies.service.js';
import type { EntitlementsService } from '../entitlements/entitlements.service.js';
import { dailyOutcomesOfLicense, foldUsageRollups, recentUsageRecordsOfLicense } from '../usage/usage.service.js';

const day = 86_400_000;
/** The detail page's chart covers the last 30 UTC days, today included. */
export const chartDays = 30;
const recentRecords = 10;
const auditEntries = 50;
/** The customer filter is a select: the latest customers, enough for a console, not a directory. */
const customerChoices = 500;

const utcMidnight = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

/**
 * Reads for the admin console's license pages. Writes are not here: the pages call the licenses
 * service itself, so its rules and audit entries are those of the API.
 */
export function adminLicensesService(deps: {
  pool: pg.Pool;
  now: () => Date;
  licenses: LicensesService;
  machines: Pick<MachinesService, 'list'>;
  products: ProductsService;
  customers: CustomersService;
  policies: PoliciesService;
  entitlements: EntitlementsService;
  audit: Pick<AuditService, 'list'>;
}) {
  /** The policies (of one product, or all) and entitlements the license forms choose from. */
  const catalogue = async (productId?: string) => {
    const [{ policies }, { entitlements }] = await Promise.all([
      deps.policies.search({ productId }),
      deps.entitlements.search(),
    ]);
    return {
      policies: policies.map((policy) => ({
        id: policy._id,
        name: policy.name,
        product: policy.product.name,
        productId: policy.productId,
      })),
      entitlements: entitlements.map((item) => ({ code: item.code, name: item.name })),
    };
  };
  const { pool, now, licenses, products: productsOf, customers: customersOf } = deps;
  const { audit } = deps;
  return {
    /** A page of licenses and the choices of the filters' selects. */
    async listPage(query: ListLicenses) {
      const [page, products, customers] = await Promise.all([
        licenses.list(query),
        productsOf.list({ includeCounts: false, activeOnly: false }),
        customersOf.choices(customerChoices),
      ]);
      return {
        ...page,
        now: now(),
        products: products.map((product) => ({ id: product._id, name: product.name, active: product.isActive })),
        customers,
      };
    },

    /** One license with its machines, usage chart, latest records and audit trail (newest first). Unknown ids throw LICENSE_NOT_FOUND. */
    async detailPage(id: string) {
      const license = await licenses.detail(id);
      const at = now();
      const chartEnd = new Date(utcMidnight(at).getTime() + day);
      const chartStart = new Date(chartEnd.getTime() - chartDays * day);
      // The chart holds every validation committed before the request (queued ones folded first).
      await foldUsageRollups(pool, at, true);
      const [machines, daily, records, trail, choices] = await Promise.all([
        deps.machines.list(id),
        dailyOutcomesOfLicense(pool, id, { from: chartStart, to: chartEnd }),
        recentUsageRecordsOfLicense(pool, id, recentRecords),
        audit.list({ resourceType: 'license', resourceId: id, limit: auditEntries, skip: 0, success: undefined }),
        catalogue(license.product._id),
      ]);
      return {
        license,
        machines,
        now: at,
        chart: { start: chartStart, days: chartDays, daily },
        records,
        audit: trail,
        choices,
      };
    },

    /** The choices of the new-license form. */
    async formChoices() {
      const [products, customers, choices] = await Promise.all([
        productsOf.list({ includeCounts: false, activeOnly: true }),
        customersOf.choices(customerChoices),
        catalogue(),
      ]);
      return {
        products: products.map((product) => ({ id: product._id, name: product.name })),
        customers,
        ...choices,
      };
    },
  };
}
export type AdminLicensesService = ReturnType<typeof adminLicensesService>;
