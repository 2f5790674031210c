import type { AuditLogJson } from '../audit/audit.presenter.js';
import { expiryText, machineRow, termText, usageChart } from '../customer-portal/customer-portal.page-data.js';
import { utcTime } from '../console/utc-time.js';
import { adminLayout, licenseTypeLabel } from '../console/layout.js';
import { licenseState, type LicenseState } from '../dashboard/dashboard.service.js';
import type { FlashMessage } from '../console/flash.js';
import type { LicenseJson } from '../licenses/licenses.presenter.js';
import type { LicensesService } from '../licenses/licenses.service.js';
import type { MachineJson } from '../machines/machines.presenter.js';
import { licenseTypes } from '../licenses/licenses.table.js';
import type { AdminLicensesService } from './admin-licenses.service.js';
import type { DailyOutcome, UsageRecordRow } from '../usage/usage.service.js';
import { pageCount } from '../console/paging.js';
import { localNumber, say } from '../console/language.js';

// What the admin console's license pages (views/admin-licenses) receive: plain data, texts
// unescaped (the views escape them), numbers and dates formatted. Times are shown in UTC.

const number = localNumber;

export const licenseStates = [
  'active',
  'suspended',
  'revoked',
  'expired',
  'inactive',
] as const satisfies readonly LicenseState[];
export type LicenseStateFilter = (typeof licenseStates)[number];

export const licenseHref = (id: string) => `/licenses/${encodeURIComponent(id)}`;
export const machineDeactivateHref = (id: string, machineId: string) =>
  `${licenseHref(id)}/machines/${encodeURIComponent(machineId)}/deactivate`;

/** The list's filters as the address carries them (what cannot be read is left out). */
export interface ListFilters {
  product?: string;
  customer?: string;
  type?: (typeof licenseTypes)[number];
  state?: LicenseStateFilter;
  expiresWithinDays?: number;
  search?: string;
  page: number;
}

/** The list page's address with its filters and `page` (1 is left out). */
export function listAddress(filters: ListFilters, page = 1): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filters, page })) {
    if (value === undefined || value === '' || (name === 'page' && value === 1)) continue;
    params.set(name, String(value));
  }
  const query = params.toString();
  return `/licenses${query ? `?${query}` : ''}`;
}

/** A state as the list query's flags: revoked outranks suspended, which outranks an expiry (as licenseState decides). */
export function stateFlags(state: LicenseStateFilter | undefined) {
  switch (state) {
    case 'active':
      return { active: true, suspended: false, revoked: false, expired: false };
    case 'suspended':
      return { suspended: true, revoked: false };
    case 'revoked':
      return { revoked: true };
    case 'expired':
      return { expired: true, suspended: false, revoked: false };
    case 'inactive':
      return { active: false, suspended: false, revoked: false, expired: false };
    default:
      return {};
  }
}

const limitText = (used: number, limit: number) => `${number(used)} / ${limit === 0 ? '∞' : number(limit)}`;

function rowView(license: LicenseJson, now: Date) {
  const state = licenseState(license, now);
  const expires = license.expiresAt ? new Date(license.expiresAt) : null;
  return {
    id: license._id,
    key: license.key,
    product: license.product.name,
    customer: license.customer ? license.customer.name : null,
    type: license.licenseType,
    state,
    expires: expires
      ? {
          iso: license.expiresAt!,
          date: license.expiresAt!.slice(0, 10),
          text: expiryText(expires, now),
          past: state === 'expired',
        }
      : null,
    ips: limitText(license.usedIps.length, license.ipLimit),
    hwids: limitText(license.usedHwids.length, license.hwidLimit),
    /** Flagged for key sharing today or yesterday (UTC). */
    shared: license.sharingSuspected,
    href: licenseHref(license._id),
  };
}

type ListPage = Awaited<ReturnType<AdminLicensesService['listPage']>>;

export function licenseListData(
  username: string,
  page: ListPage,
  filters: ListFilters,
  pageSize: number,
  flash: FlashMessage[],
) {
  const pages = pageCount(page.total, pageSize);
  const filtered = Boolean(
    filters.product ||
    filters.customer ||
    filters.type ||
    filters.state ||
    filters.expiresWithinDays !== undefined ||
    filters.search,
  );
  return {
    ...adminLayout(say('common.licenses'), username, 'licenses'),
    flash,
    filters: {
      product: filters.product ?? '',
      customer: filters.customer ?? '',
      type: filters.type ?? '',
      state: filters.state ?? '',
      expiresWithinDays: filters.expiresWithinDays === undefined ? '' : String(filters.expiresWithinDays),
      search: filters.search ?? '',
    },
    filtered,
    products: page.products.map((product) => ({
      value: product.id,
      label: product.active ? product.name : say('licenses.list.inactiveProduct', { name: product.name }),
    })),
    customers: page.customers.map((customer) => ({
      value: customer.id,
      label: `${customer.name} (${customer.email})`,
    })),
    types: licenseTypes.map((type) => ({ value: type, label: licenseTypeLabel(type) })),
    states: licenseStates.map((state) => ({ value: state, label: say(`states.${state}`) })),
    licenses: page.licenses.map((license) => rowView(license, page.now)),
    total: number(page.total),
    count: page.total,
    page: Math.min(filters.page, pages),
    pages,
    pageHref: (number: number) => listAddress(filters, number),
  };
}

/** Changed fields listed per audit entry; a creation lists every field, so the rest is counted. */
const shownChanges = 5;

/** An audit entry's changed fields, each value as short JSON text. */
function changesOf(entry: AuditLogJson) {
  const { before, after } = entry.changes;
  const short = (value: unknown) => {
    if (value === undefined) return '—';
    const text = JSON.stringify(value) ?? '—';
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  };
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (field) => field !== 'updatedAt' && JSON.stringify(before[field]) !== JSON.stringify(after[field]),
  );
  return {
    fields: fields
      .slice(0, shownChanges)
      .map((field) => ({ field, before: short(before[field]), after: short(after[field]) })),
    more: Math.max(0, fields.length - shownChanges),
  };
}

const statusLabel = (status: UsageRecordRow['status']) => say(`records.status.${status}`);

export interface DetailPage {
  license: Awaited<ReturnType<LicensesService['detail']>>;
  machines: MachineJson[];
  now: Date;
  chart: { start: Date; days: number; daily: DailyOutcome[] };
  records: { rows: UsageRecordRow[]; total: number };
  audit: { auditLogs: AuditLogJson[]; total: number };
  choices: CatalogueChoices;
}

/** The policies and entitlements the license forms choose from. */
export interface CatalogueChoices {
  policies: Array<{ id: string; name: string; product: string; productId: string }>;
  entitlements: Array<{ code: string; name: string }>;
}

const entitlementChoices = (choices: CatalogueChoices) =>
  choices.entitlements.map((item) => ({ code: item.code, label: `${item.name} (${item.code})` }));

export function licenseDetailData(username: string, page: DetailPage, csrfToken: string, flash: FlashMessage[]) {
  const { license, now, chart } = page;
  const view = rowView(license, now);

  const { svg, range, totalSuccess, totalFailure } = usageChart(chart);
  const href = licenseHref(license._id);
  const time = (value: string | null) => (value ? utcTime(value) : null);

  return {
    ...adminLayout(say('licenses.detail.title', { key: license.key }), username, 'licenses'),
    flash,
    csrfToken,
    license: {
      ...view,
      productId: license.product._id,
      productDescription: license.product.description,
      customer: license.customer,
      parent: license.parent ? { id: license.parent, href: licenseHref(license.parent) } : null,
      active: license.active,
      suspended: license.suspended,
      suspendReason: license.suspendReason,
      revoked: license.revoked,
      revokeReason: license.revokeReason,
      ipLimit: license.ipLimit === 0 ? 'unlimited' : number(license.ipLimit),
      hwidLimit: license.hwidLimit === 0 ? 'unlimited' : number(license.hwidLimit),
      heartbeatSeconds: license.heartbeatSeconds,
      graceDays: license.graceDays,
      expirationStrategy: license.expirationStrategy,
      term: termText(license, now),
      borrowHours: license.borrowHours,
      sharingAddressLimit: license.sharingAddressLimit,
      sharingLimit:
        license.effectiveSharingAddressLimit === null
          ? say('common.none')
          : say(
              license.sharingAddressLimit === null
                ? 'licenses.detail.sharingPerDayPolicy'
                : 'licenses.detail.sharingPerDay',
              {
                count: license.effectiveSharingAddressLimit,
                n: number(license.effectiveSharingAddressLimit),
              },
            ),
      usedIps: license.usedIps,
      credits: license.credits
        ? {
            total: number(license.credits.total),
            used: number(license.credits.used),
            remaining: number(license.credits.remaining),
          }
        : null,
      conversion:
        license.autoConvert || license.convertToType
          ? say(license.convertDurationDays ? 'licenses.detail.conversionFor' : 'licenses.detail.conversion', {
              how: say(license.autoConvert ? 'licenses.detail.automatic' : 'licenses.detail.manual'),
              type: licenseTypeLabel(license.convertToType ?? 'fixed'),
              count: license.convertDurationDays ?? 0,
              n: number(license.convertDurationDays ?? 0),
            })
          : null,
      convertedAt: time(license.convertedAt),
      violationCount: number(license.violationCount),
      lastValidatedAt: time(license.lastValidatedAt),
      createdAt: utcTime(license.createdAt),
      updatedAt: utcTime(license.updatedAt),
      metadata:
        license.metadata && Object.keys(license.metadata).length ? JSON.stringify(license.metadata, null, 2) : null,
      members: license.members.map((member) => ({ email: member.email, userId: member.userId, role: member.role })),
      stats: {
        total: number(license.usageStats.totalRequests),
        success: number(license.usageStats.successfulRequests),
        blocked: number(license.usageStats.blockedRequests),
        ips: number(license.usageStats.uniqueIPs),
        hwids: number(license.usageStats.uniqueHWIDs),
      },
    },
    machines: page.machines.map((machine) => ({
      ...machineRow(machine, now, license.heartbeatSeconds),
      deactivate: machineDeactivateHref(license._id, machine._id),
    })),
    grants: {
      policy: license.policy
        ? { name: license.policy.name, href: `/policies/${encodeURIComponent(license.policy._id)}` }
        : null,
      own: license.entitlements,
      fromPolicy: license.effectiveEntitlements.filter((code) => !license.entitlements.includes(code)),
      effective: license.effectiveEntitlements,
      policyId: license.policy?._id ?? '',
      policies: [
        { value: '', label: say('licenses.new.noPolicy') },
        ...page.choices.policies.map((policy) => ({ value: policy.id, label: policy.name })),
      ],
      entitlements: entitlementChoices(page.choices),
    },
    chart: { svg, days: chart.days, range, totals: { success: number(totalSuccess), failure: number(totalFailure) } },
    records: {
      rows: page.records.rows.map((record) => ({
        id: String(record.id),
        time: utcTime(record.created_at),
        iso: new Date(record.created_at).toISOString(),
        status: record.status,
        statusLabel: statusLabel(record.status),
        ip: record.ip,
        hwid: record.hwid,
        reason: record.reason,
      })),
      shown: page.records.rows.length,
      total: number(page.records.total),
    },
    audit: {
      entries: page.audit.auditLogs.map((entry) => ({
        id: entry._id,
        time: utcTime(entry.createdAt),
        iso: entry.createdAt,
        action: entry.action,
        userId: entry.userId,
        success: entry.success,
        ip: entry.ip,
        changes: changesOf(entry),
      })),
      shown: page.audit.auditLogs.length,
      total: number(page.audit.total),
    },
    actions: {
      suspend: `${href}/suspend`,
      reactivate: `${href}/reactivate`,
      revoke: `${href}/revoke`,
      rotate: `${href}/rotate`,
      clear: `${href}/clear`,
      seats: `${href}/seats`,
      sharing: `${href}/sharing`,
      expiry: `${href}/expiry`,
      offline: `${href}/machines/offline`,
      entitlements: `${href}/entitlements`,
      file: `/api/licenses/${encodeURIComponent(license._id)}/file`,
    },
  };
}

/** The new-license form, with the values sent back when it failed. */
export function newLicenseData(
  username: string,
  choices: {
    products: Array<{ id: string; name: string }>;
    customers: Array<{ id: string; name: string; email: string }>;
  } & CatalogueChoices,
  csrfToken: string,
  values: Record<string, string>,
  errors: FlashMessage[],
  checked: string[] = [],
) {
  return {
    ...adminLayout(say('common.newLicense'), username, 'licenses'),
    flash: errors,
    csrfToken,
    values,
    checked,
    products: choices.products.map((product) => ({ value: product.id, label: product.name })),
    customers: [
      { value: '', label: say('licenses.new.noCustomer') },
      ...choices.customers.map((customer) => ({ value: customer.id, label: `${customer.name} (${customer.email})` })),
    ],
    // Empty: the policy's type, or fixed without one.
    types: [
      { value: '', label: say('licenses.new.typeBlank') },
      ...licenseTypes.map((type) => ({ value: type, label: licenseTypeLabel(type) })),
    ],
    policies: [
      { value: '', label: say('licenses.new.noPolicy') },
      ...choices.policies.map((policy) => ({ value: policy.id, label: `${policy.product}: ${policy.name}` })),
    ],
    entitlements: entitlementChoices(choices),
  };
}
