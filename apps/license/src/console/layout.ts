import { localNumber, say } from './language.js';

// The console kit's page data: the layout every page's view (apps/license/views) reads, the
// admin navigation, and the pages every feature shares (no access, not found, the error page).
// Plain data, every text still unescaped (the views escape it), numbers already formatted.

export const serviceName = 'License Service';
/** Where the dashboard's own stylesheet, script and icon are served. */
export const assetsPath = '/dashboard-assets';

/** Sign-in failures the auth routes redirect to (`/?error=...`); anything else is ignored. */
const signInErrors = new Set(['auth_failed', 'rate_limited', 'no_user', 'https_required']);

export function signInErrorMessage(code: unknown): string | undefined {
  return typeof code === 'string' && signInErrors.has(code) ? say(`signIn.errors.${code}`) : undefined;
}

/** A count as the pages write it, in the page's language: `1,234`, `1.234`. */
export const number = localNumber;

/** A license type as every page writes it: `Fixed`, `Trial`, `Consumption`, `Enterprise` (in the page's language). */
export const licenseTypeLabel = (type: string) => {
  const label = say(`types.${type}`);
  return label.charAt(0).toUpperCase() + label.slice(1);
};

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

export function noAccessData(username: string) {
  return { ...layout(say('noAccess.title'), username) };
}

/** The page for a path that does not exist (every method); `/api` paths answer JSON instead. */
export function notFoundData(username?: string) {
  return { ...layout(say('errors.notFound.title'), username) };
}

/** The statuses with a heading of their own (errors.headings.<status>). */
const errorHeadings = new Set([400, 401, 403, 404, 409, 413, 429, 503]);

/**
 * Where an error page links back to: the page the person came from (same site; pages send no
 * Referer under helmet's policy, so mostly absent), else the page of the license a download
 * belongs to, else the start page.
 */
export function errorBackLink(
  path: string,
  referer: { href: string; sameSite: boolean },
): { href: string; label: string } {
  if (referer.sameSite) return { href: referer.href, label: say('errors.goBack') };
  const download = /^\/api\/(customer\/licenses|licenses)\/([0-9a-f-]{36})\/file$/i.exec(path);
  if (download)
    return {
      href: `${download[1] === 'licenses' ? '/licenses' : '/my-licenses'}/${download[2]}`,
      label: say('common.backToLicense'),
    };
  return { href: '/', label: say('errors.toStart') };
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
  const heading = say(
    errorHeadings.has(status)
      ? `errors.headings.${status}`
      : status >= 500
        ? 'errors.headings.5xx'
        : 'errors.headings.4xx',
  );
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
