import type { DashboardCounts } from './dashboard-counts.js';
import type { LicenseRowView } from './dashboard.service.js';

// What each page's view (apps/license/views) receives: plain data, every text still unescaped
// (the views escape it), numbers already formatted.

export const serviceName = 'License Service';
/** Where the dashboard's own stylesheet, script and icon are served. */
export const assetsPath = '/dashboard-assets';

/** Sign-in failures the auth routes redirect to (`/?error=...`); anything else is ignored. */
const signInErrors: Record<string, string> = {
  auth_failed: 'Sign-in failed. Please try again.',
  rate_limited: 'The identity provider is rate limiting sign-ins; wait a minute and try again.',
  no_user: 'The identity provider returned no user.',
  https_required:
    'Sign-in failed: the sign-in cookie could not be set over plain http. In production the session cookie is Secure, so browsers keep it only over https: open this site at its https:// address (behind a TLS-terminating proxy, the service needs TRUST_PROXY set).',
};

export function signInErrorMessage(code: unknown): string | undefined {
  return typeof code === 'string' && Object.hasOwn(signInErrors, code) ? signInErrors[code] : undefined;
}

const number = (value: number) => value.toLocaleString('en-US');

/** A license type as every page writes it: `Fixed`, `Trial`, `Consumption`, `Enterprise`. */
export const licenseTypeLabel = (type: string) => type.charAt(0).toUpperCase() + type.slice(1);

/** The admin console's sections, in the navigation bar of every admin page. */
export const adminNav = [
  { id: 'dashboard', href: '/', label: 'Dashboard' },
  { id: 'products', href: '/products', label: 'Products' },
  { id: 'customers', href: '/customers', label: 'Customers' },
  { id: 'licenses', href: '/licenses', label: 'Licenses' },
  { id: 'automations', href: '/automations', label: 'Automations' },
  { id: 'webhooks', href: '/webhooks', label: 'Webhooks' },
  { id: 'audit', href: '/audit-log', label: 'Audit log' },
  { id: 'exports', href: '/exports', label: 'Exports' },
  { id: 'settings', href: '/settings', label: 'Settings' },
] as const;
export type AdminSection = (typeof adminNav)[number]['id'];

/** What every admin console page's layout reads: the common layout plus the navigation bar with `section` marked current. */
export const adminLayout = (title: string, username: string, section: AdminSection, script = false) => ({
  ...layout(title, username, script),
  adminNav,
  adminSection: section,
});

/** What every page's layout reads (`script`: the page loads dashboard.js). */
export const layout = (title: string, username?: string, script = false) => ({
  serviceName,
  assetsPath,
  title,
  username,
  script,
});

const licenseRow = (license: LicenseRowView) => ({
  ...license,
  expiresDate: license.expiresAt?.slice(0, 10) ?? null,
  credits: license.credits
    ? { total: number(license.credits.total), remaining: number(license.credits.remaining) }
    : null,
});

export function signInData(errorCode: unknown) {
  return { ...layout('Sign in'), error: signInErrorMessage(errorCode) };
}

export function noAccessData(username: string) {
  return { ...layout('No access', username) };
}

/** The page for a path that does not exist (every method); `/api` paths answer JSON instead. */
export function notFoundData(username?: string) {
  return { ...layout('Page not found', username) };
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
  recent: LicenseRowView[];
  panicMode: boolean;
}

export function adminData(username: string, { counts, recent, panicMode }: AdminOverview) {
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
    recent: recent.map(licenseRow),
    licenseTotal: number(licenses.total),
    adminApi,
  };
}

const errorHeadings: Record<number, string> = {
  400: 'Request not accepted',
  401: 'Sign-in required',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  429: 'Too many requests',
  503: 'Service unavailable',
};

/**
 * Where an error page links back to: the page the person came from (same site; pages send no
 * Referer under helmet's policy, so mostly absent), else the page of the license a download
 * belongs to, else the start page.
 */
export function errorBackLink(
  path: string,
  referer: { href: string; sameSite: boolean },
): { href: string; label: string } {
  if (referer.sameSite) return { href: referer.href, label: 'Go back' };
  const download = /^\/api\/(customer\/licenses|licenses)\/([0-9a-f-]{36})\/file$/i.exec(path);
  if (download)
    return {
      href: `${download[1] === 'licenses' ? '/licenses' : '/my-licenses'}/${download[2]}`,
      label: 'Back to the license',
    };
  return { href: '/', label: 'Go to the start page' };
}

/**
 * The error page a browser navigation gets (the one error handler renders it; programs get
 * JSON): the status, the same text the JSON carries, the suspend reason or the field messages or
 * the variables to set when the answer has them, and a link back.
 */
export function errorPageData(input: {
  status: number;
  message: string;
  details?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  username?: string;
  back: { href: string; label: string };
}) {
  const { status, extra } = input;
  const heading = errorHeadings[status] ?? (status >= 500 ? 'Something went wrong' : 'Request failed');
  const variables = Array.isArray(extra?.variables)
    ? extra.variables.filter((name): name is string => typeof name === 'string')
    : [];
  // Variables the message does not name already (the sign-in hint names them all).
  const items = [
    ...Object.entries(input.details ?? {}).map(
      ([field, text]) => `${field}: ${Array.isArray(text) ? text.join(', ') : String(text)}`,
    ),
    ...variables.filter((name) => !input.message.includes(name)),
  ];
  return {
    ...layout(heading, input.username),
    status,
    heading,
    message: input.message,
    reason: typeof extra?.reason === 'string' ? extra.reason : null,
    items,
    back: input.back,
  };
}
