import { adminLayout, layout, number, signInErrorMessage } from '../console/layout.js';
import type { DashboardCounts } from './dashboard-counts.js';
import type { LicenseRowView } from './dashboard.service.js';
import { barChartSvg, lineChartSvg } from '@app/ui';
import type { DayRollup } from '../usage/usage.service.js';
import { say } from '../console/language.js';

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
    ...layout(say('signIn.button')),
    error: signInErrorMessage(errorCode),
    signInHref: returnTo ? `/auth/idp?returnTo=${encodeURIComponent(returnTo)}` : '/auth/idp',
  };
}

/** The two-factor gate of an admin session: verify a code, or set two-factor up when it is required. */
export function twoFactorData(username: string, step: 'verify' | 'setup') {
  return { ...layout(say('twoFactor.title'), username, true), step };
}

const exportLinks = () => [
  { href: '/api/export/licenses/csv', label: say('dashboard.exportLinks.licensesCsv') },
  { href: '/api/export/licenses/pdf', label: say('dashboard.exportLinks.licensesPdf') },
  { href: '/api/export/transactions/csv', label: say('dashboard.exportLinks.transactionsCsv') },
  { href: '/api/export/summary/pdf', label: say('dashboard.exportLinks.summaryPdf') },
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
    ...adminLayout(say('dashboard.heading'), username, 'dashboard', true),
    panicMode,
    stats: [
      stat('products', say('common.products'), counts.products),
      stat('customers', say('common.customers'), counts.customers),
      stat(
        'licenses-total',
        say('common.licenses'),
        licenses.total,
        say('dashboard.stats.revoked', { n: number(licenses.revoked) }),
      ),
      stat('licenses-active', say('dashboard.stats.active'), licenses.active),
      stat('licenses-suspended', say('dashboard.stats.suspended'), licenses.suspended),
      stat('licenses-expired', say('dashboard.stats.expired'), licenses.expired),
      stat('validations', say('dashboard.stats.validations24h'), validations.total),
    ],
    validationSplit: [
      stat('validations-success', say('dashboard.stats.success'), validations.success),
      stat('validations-blocked', say('dashboard.stats.blocked'), validations.blocked),
      stat('validations-invalid', say('dashboard.stats.invalid'), validations.invalid),
    ],
    exports: exportLinks(),
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
  const range = labels.length ? say('charts.range', { from: labels[0], to: labels[labels.length - 1] }) : '';
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
      title: say('charts.validationsTitle', { days: 30 }),
      description: say('charts.dashboardValidationsDescription', {
        range,
        ok: number(sum(ok)),
        refused: number(sum(refused)),
      }),
      labels,
      series: [
        { name: 'successful', className: 'chart-success', values: ok },
        { name: 'refused', className: 'chart-failure', values: refused },
      ],
    }),
    machines: lineChartSvg({
      id: 'machines-chart',
      title: say('charts.machinesTitle', { days: 30 }),
      description: say('charts.machinesDescription', { range, peak: number(peak) }),
      labels,
      series: { name: 'machines', className: 'chart-info', values: machines },
    }),
    top,
  };
}
