import { barChartSvg } from '@app/ui';
import { iso } from '../common/schemas.js';
import { layout } from '../console/layout.js';
import { utcTime } from '../console/utc-time.js';
import { localNumber, pageLanguage, say } from '../console/language.js';
import { licenseState } from '../dashboard/dashboard.service.js';
import { creditsOf } from '../licenses/licenses.presenter.js';
import type { LicenseRow } from '../licenses/licenses.schema.js';
import type { MachineJson } from '../machines/machines.presenter.js';
import { licenseTerm, type LicenseTermSource } from '../licenses/license-term.js';
import type { DailyOutcome, DeviceSighting, UsageRecordRow } from '../usage/usage.service.js';

// What the customer portal's views (views/customer-portal) receive: plain data, texts unescaped
// (the views escape them), numbers and dates already formatted. Times are shown in UTC.

const day = 86_400_000;
const number = localNumber;

// Intl words each language's "in 3 days" and "3 days ago", plurals included (Arabic has six forms).
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
function relativeTimeText(language: string, value: number, unit: Intl.RelativeTimeFormatUnit): string {
  let format = relativeFormats.get(language);
  if (!format) relativeFormats.set(language, (format = new Intl.RelativeTimeFormat(language, { numeric: 'always' })));
  return format.format(value, unit);
}

const units: Array<[seconds: number, unit: 'day' | 'hour' | 'minute']> = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
];

/** "just now", "5 minutes ago", "in 3 hours", "2 days ago": the largest whole unit, rounded down. */
export function relativeTime(at: Date | string, now: Date): string {
  const seconds = Math.round((new Date(at).getTime() - now.getTime()) / 1000);
  const size = Math.abs(seconds);
  const [length, unit] = units.find(([length]) => size >= length) ?? [1, undefined];
  if (!unit) return say(seconds > 0 ? 'time.soon' : 'time.justNow');
  const count = Math.floor(size / length);
  return relativeTimeText(pageLanguage(), seconds > 0 ? count : -count, unit);
}

/**
 * A machine as both license pages list it: its name (or fingerprint when unnamed), and its times
 * relative and exact. `heartbeatSeconds` (floating seats): a lease beyond the next heartbeat's
 * reach was lent to an offline file, so the row says "Borrowed until …".
 */
export function machineRow(machine: MachineJson, now: Date, heartbeatSeconds: number | null = null) {
  const moment = (value: string) => ({ iso: value, exact: utcTime(value), relative: relativeTime(value, now) });
  const lease = machine.leaseExpiresAt;
  const borrowed =
    heartbeatSeconds !== null && lease !== null && Date.parse(lease) > now.getTime() + heartbeatSeconds * 1000;
  return {
    borrowedUntil: borrowed && lease ? moment(lease) : null,
    id: machine._id,
    label: machine.name ?? machine.fingerprint,
    name: machine.name,
    platform: machine.platform,
    fingerprint: machine.fingerprint,
    lastSeen: moment(machine.lastSeenAt),
    leaseEnd: machine.leaseExpiresAt ? moment(machine.leaseExpiresAt) : null,
  };
}

/** "expires in 12 days", "expires today", "expired 3 days ago", "expired today", or "never". */
export function expiryText(expiresAt: Date | null, now: Date): string {
  if (!expiresAt) return say('common.never');
  const left = expiresAt.getTime() - now.getTime();
  if (left > 0) {
    const days = Math.floor(left / day);
    return days === 0
      ? say('expiry.today')
      : say('expiry.inDays', { when: relativeTimeText(pageLanguage(), days, 'day') });
  }
  const ago = Math.floor(-left / day);
  return ago === 0
    ? say('expiry.expiredToday')
    : say('expiry.expiredDaysAgo', { when: relativeTimeText(pageLanguage(), -ago, 'day') });
}

/** The choices of the chart's range (the pages' query schema lists the same); anything else in the address means the default. */
export const chartRanges = [7, 30, 90] as const;
export const defaultChartDays = 30;

const licenseHref = (id: string) => `/my-licenses/${encodeURIComponent(id)}`;

/**
 * Where a license stands past its expiry, in words: "Grace until …" while validation still
 * succeeds in its grace days, "Expired, kept working (maintain)" past its term; null otherwise.
 */
export function termText(license: LicenseTermSource, now: Date): string | null {
  const term = licenseTerm(license, now);
  if (term.graceEndsAt) return say('expiry.graceUntil', { time: utcTime(term.graceEndsAt) });
  return term.expired ? say('expiry.maintained') : null;
}

/** A license as both pages show it. */
function licenseView(row: LicenseRow, now: Date) {
  const state = licenseState(
    { active: row.active, suspended: row.suspended, revoked: row.revoked, expiresAt: iso(row.expires_at) },
    now,
  );
  const credits = row.license_type === 'consumption' ? creditsOf(row) : null;
  return {
    id: row.id,
    key: row.key,
    product: row.product_name,
    type: row.license_type,
    state,
    expires: row.expires_at
      ? {
          iso: iso(row.expires_at)!,
          date: iso(row.expires_at)!.slice(0, 10),
          text: expiryText(row.expires_at, now),
          past: state === 'expired',
        }
      : null,
    term: termText(
      { expiresAt: iso(row.expires_at), graceDays: row.grace_days, expirationStrategy: row.expiration_strategy },
      now,
    ),
    ips: { used: row.used_ips.length, limit: row.ip_limit },
    hwids: { used: row.used_hwids.length, limit: row.hwid_limit },
    credits: credits
      ? {
          total: number(credits.total),
          used: number(credits.used),
          remaining: number(credits.remaining),
          empty: credits.remaining === 0,
        }
      : null,
    href: licenseHref(row.id),
  };
}

export interface LicensesPage {
  customerName: string;
  licenses: LicenseRow[];
  now: Date;
  panicMode: boolean;
}

/** The list at `/` of a signed-in customer. */
export function licensesPageData(username: string, page: LicensesPage) {
  return {
    ...layout(say('common.yourLicenses'), username, true),
    customerName: page.customerName,
    panicMode: page.panicMode,
    licenses: page.licenses.map((row) => licenseView(row, page.now)),
  };
}

/** The license page's address with `changes` applied to the current query (page 1 unless a page is given). */
function addressWith(
  id: string,
  current: Record<string, string | number | undefined>,
  changes: Record<string, string | number | undefined>,
) {
  const merged = { ...current, page: undefined, ...changes };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(merged)) {
    if (value === undefined || value === '') continue;
    if (name === 'days' && value === defaultChartDays) continue;
    if (name === 'page' && value === 1) continue;
    params.set(name, String(value));
  }
  const query = params.toString();
  return `${licenseHref(id)}${query ? `?${query}` : ''}`;
}

/** Days of credit use listed under the credits; the chart shows the whole range. */
const creditHistoryDays = 10;

/** A consumption license spends one credit per successful validation: the latest days with use. */
function creditHistory(perDay: Array<{ day: string; used: number }>) {
  const used = perDay.filter((entry) => entry.used > 0).reverse();
  return {
    days: used.slice(0, creditHistoryDays).map((entry) => ({ day: entry.day, used: number(entry.used) })),
    more: Math.max(0, used.length - creditHistoryDays),
  };
}

export interface LicensePage {
  customerName: string;
  license: LicenseRow;
  now: Date;
  chart: { start: Date; days: number; daily: DailyOutcome[] };
  records: { rows: UsageRecordRow[]; total: number; page: number; pages: number };
  devices: DeviceSighting[];
  machines: MachineJson[];
  /** Entitlement names by code: a customer reads "Export to PDF", the code is for their developers. */
  featureNames: Map<string, string>;
}

const statusLabel = (status: UsageRecordRow['status']) => say(`records.status.${status}`);

/** `/my-licenses/:licenseId`: every field, the usage chart, the records, credits, IPs and machines (its hardware ids). */
export function licensePageData(
  username: string,
  page: LicensePage,
  query: { days: number; from?: string; to?: string },
) {
  const { license: row, now, chart, records } = page;
  const license = licenseView(row, now);
  const current = { days: query.days, from: query.from, to: query.to };

  const { svg, range, days, success, totalSuccess, totalFailure } = usageChart(chart);

  const sightings = new Map(page.devices.map((sighting) => [`${sighting.kind}:${sighting.value}`, sighting]));
  const device = (kind: 'ip' | 'hwid') => (value: string) => {
    const seen = sightings.get(`${kind}:${value}`);
    return {
      value,
      firstSeen: seen ? utcTime(seen.first_seen) : null,
      lastSeen: seen ? utcTime(seen.last_seen) : null,
    };
  };

  return {
    ...layout(`${row.product_name} · ${row.key}`, username, true),
    customerName: page.customerName,
    license: {
      ...license,
      description: row.product_description,
      createdAt: utcTime(row.created_at),
      lastValidatedAt: row.last_validated_at ? utcTime(row.last_validated_at) : null,
      // What it grants (its own entitlements and its policy's), as the portal's "Features".
      features: [...new Set([...row.own_entitlements, ...row.policy_entitlements])]
        .sort()
        .map((code) => ({ code, name: page.featureNames.get(code) ?? code })),
    },
    chart: {
      svg,
      days: chart.days,
      range,
      totals: { success: number(totalSuccess), failure: number(totalFailure) },
      ranges: chartRanges.map((option) => ({
        days: option,
        href: addressWith(row.id, current, { days: option }),
        current: option === chart.days,
      })),
    },
    creditHistory: creditHistory(
      license.credits ? days.map((date, index) => ({ day: date, used: success[index]! })) : [],
    ),
    records: {
      rows: records.rows.map((record) => ({
        id: String(record.id),
        time: utcTime(record.created_at),
        iso: iso(record.created_at)!,
        status: record.status,
        statusLabel: statusLabel(record.status),
        ip: record.ip,
        hwid: record.hwid,
        reason: record.reason,
      })),
      total: number(records.total),
      count: records.total,
      page: records.page,
      pages: records.pages,
      from: query.from ?? '',
      to: query.to ?? '',
      filtered: Boolean(query.from || query.to),
      days: query.days === defaultChartDays ? '' : String(query.days),
      clearHref: addressWith(row.id, current, { from: undefined, to: undefined }),
      pageHref: (number: number) => `${addressWith(row.id, current, { page: number })}#records`,
    },
    devices: { ips: row.used_ips.map(device('ip')) },
    machines: page.machines.map((machine) => machineRow(machine, now, row.heartbeat_seconds)),
    releaseUrl: `/api/customer/licenses/${encodeURIComponent(row.id)}/release`,
    fileUrl: `/api/customer/licenses/${encodeURIComponent(row.id)}/file`,
    offlineUrl: `/my-licenses/${encodeURIComponent(row.id)}/machines/offline`,
  };
}

/** The usage chart of a license page: one bar per UTC day of the range, days without validations included. */
export function usageChart(chart: { daily: DailyOutcome[]; days: number; start: Date }) {
  const counts = new Map(chart.daily.map((entry) => [entry.day, entry]));
  const days = Array.from({ length: chart.days }, (_, index) =>
    new Date(chart.start.getTime() + index * day).toISOString().slice(0, 10),
  );
  const success = days.map((date) => counts.get(date)?.success ?? 0);
  const failure = days.map((date) => counts.get(date)?.failure ?? 0);
  const totalSuccess = success.reduce((sum, value) => sum + value, 0);
  const totalFailure = failure.reduce((sum, value) => sum + value, 0);
  const range = say('charts.range', { from: days[0], to: days[days.length - 1] });
  const svg = barChartSvg({
    id: 'usage-chart',
    title: say('charts.validationsTitle', { days: chart.days }),
    description: say('charts.validationsDescription', {
      range,
      success: say('charts.successfulValidations', { count: totalSuccess }),
      failure: say('charts.failedValidations', { count: totalFailure }),
    }),
    labels: days,
    series: [
      { name: 'successful', className: 'chart-success', values: success },
      { name: 'failed', className: 'chart-failure', values: failure },
    ],
  });
  return { svg, range, days, success, totalSuccess, totalFailure };
}
