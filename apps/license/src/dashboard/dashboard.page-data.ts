import { adminLayout, layout, number, signInErrorMessage } from '../console/layout.js';
import type { DashboardCounts } from './dashboard-counts.js';
import type { LicenseRowView } from './dashboard.service.js';
import { barChartSvg, lineChartSvg } from '@app/ui';
import type { DayRollup } from '../usage/usage.service.js';

// What the dashboard's views (apps/license/views/dashboard) receive: plain data, every text still
// unescaped (the views escape it), numbers already formatted. The shared layout is the console kit's.

const licenseRow = (license: LicenseRowView) => ({
  ...license,
  expiresDate: license.expiresAt?.slice(0, 10) ?? null,
  credits: license.credits
    ? { total: number(license.credits.total), remaining: number(license.credits.remaining) }
    : null,
});

export function signInData(errorCode: unknown, returnTo?: string) {
  return {
    ...layout('Sign in'),
    error: signInErrorMessage(errorCode),
    signInHref: returnTo ? `/auth/idp?returnTo=${encodeURIComponent(returnTo)}` : '/auth/idp',
  };
}

/** The two-factor gate of an admin session: verify a code, or set two-factor up when it is required. */
export function twoFactorData(username: string, step: 'verify' | 'setup') {
  return { ...layout('Two-factor verification', username, true), step };
}

const exportLinks = [
  { href: '/api/export/licenses/csv', label: 'Licenses (CSV)' },
  { href: '/api/export/licenses/pdf', label: 'Licenses (PDF)' },
  { href: '/api/export/transactions/csv', label: 'Transactions (CSV)' },
  { href: '/api/export/summary/pdf', label: 'Summary report (PDF)' },
];

const adminApi = [
  { method: 'GET, POST', path: '/api/products', what: 'Products; PUT, DELETE /api/products/:id' },
  { method: 'GET, POST', path: '/api/customers', what: 'Customers; GET, PUT, DELETE /api/customers/:id' },
  {
    method: 'GET, POST',
    path: '/api/licenses',
    what: 'Licenses (filters: product, customer, licenseType, active, suspended, revoked, expired, expiresWithinDays, search)',
  },
  { method: 'POST', path: '/api/licenses/:id/suspend', what: 'Also /reactivate and /revoke' },
  {
    method: 'POST',
    path: '/api/license/rotate',
    what: 'New key for a license; /api/license/clear empties its IP and HWID lists',
  },
  {
    method: 'GET, PUT',
    path: '/api/admin/config',
    what: 'Runtime configuration: panic mode and the public rate limit',
  },
  { method: 'GET, POST', path: '/api/admin/panic', what: 'Panic mode switch, body { "enabled": true | false }' },
  { method: 'GET', path: '/api/audit', what: 'Audit log' },
  { method: 'GET, POST', path: '/api/automated-actions', what: 'Automated actions' },
  { method: 'POST', path: '/api/auth/token', what: 'A JWT for API clients (Authorization: Bearer)' },
  { method: 'GET', path: '/api/2fa/status', what: 'Two-factor: /setup, /enable, /verify, /disable' },
];

export interface AdminOverview {
  counts: DashboardCounts;
  insight: {
    days: DayRollup[];
    top: Array<{ license_id: string; key: string | null; ok: number; refused: number }>;
  };
  recent: LicenseRowView[];
  panicMode: boolean;
}

export function adminData(username: string, { counts, recent, panicMode, insight }: AdminOverview) {
  const { licenses, validations } = counts;
  const stat = (id: string, label: string, value: number, note?: string) => ({ id, label, value: number(value), note });
  return {
    ...adminLayout('Admin dashboard', username, 'dashboard', true),
    panicMode,
    stats: [
      stat('products', 'Products', counts.products),
      stat('customers', 'Customers', counts.customers),
      stat('licenses-total', 'Licenses', licenses.total, `${number(licenses.revoked)} revoked`),
      stat('licenses-active', 'Active', licenses.active),
      stat('licenses-suspended', 'Suspended', licenses.suspended),
      stat('licenses-expired', 'Expired', licenses.expired),
      stat('validations', 'Validations, last 24 h', validations.total),
    ],
    validationSplit: [
      stat('validations-success', 'success', validations.success),
      stat('validations-blocked', 'blocked', validations.blocked),
      stat('validations-invalid', 'invalid', validations.invalid),
    ],
    exports: exportLinks,
    insight: insightCharts(insight),
    recent: recent.map(licenseRow),
    licenseTotal: number(licenses.total),
    adminApi,
  };
}

/** The dashboard's charts of the last 30 days (daily rollups): validations by outcome, active machines, top licenses. */
function insightCharts(insight: AdminOverview['insight']) {
  const labels = insight.days.map((day) => day.date);
  const ok = insight.days.map((day) => day.ok);
  const refused = insight.days.map((day) => Object.values(day.refused).reduce((sum, n) => sum + n, 0));
  const machines = insight.days.map((day) => day.machines);
  const sum = (values: number[]) => values.reduce((total, n) => total + n, 0);
  const range = labels.length ? `${labels[0]} to ${labels[labels.length - 1]}` : '';
  const refusals = new Map<string, number>();
  for (const day of insight.days)
    for (const [error, n] of Object.entries(day.refused)) refusals.set(error, (refusals.get(error) ?? 0) + n);
  const peak = Math.max(0, ...machines);
  const top = insight.top.map((entry) => ({
    key: entry.key ?? entry.license_id,
    href: `/licenses/${encodeURIComponent(entry.license_id)}`,
    ok: number(entry.ok),
    refused: number(entry.refused),
    share: Math.round(((entry.ok + entry.refused) / Math.max(1, insight.top[0]!.ok + insight.top[0]!.refused)) * 100),
  }));
  return {
    range,
    totals: { ok: number(sum(ok)), refused: number(sum(refused)) },
    refusals: [...refusals.entries()].sort((a, b) => b[1] - a[1]).map(([error, n]) => ({ error, n: number(n) })),
    validations: barChartSvg({
      id: 'validations-chart',
      title: 'Validations per day, last 30 days',
      description: `From ${range} (UTC): ${number(sum(ok))} successful and ${number(sum(refused))} refused.`,
      labels,
      series: [
        { name: 'successful', className: 'chart-success', values: ok },
        { name: 'refused', className: 'chart-failure', values: refused },
      ],
    }),
    machines: lineChartSvg({
      id: 'machines-chart',
      title: 'Active machines per day, last 30 days',
      description: `From ${range} (UTC): at most ${number(peak)} distinct machines validated in a day.`,
      labels,
      series: { name: 'machines', className: 'chart-info', values: machines },
    }),
    top,
  };
}
