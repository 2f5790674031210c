import { html, type Raw } from '@app/http';
import type { DashboardCounts } from './dashboard.repository.js';
import type { LicenseRowView } from './dashboard.service.js';

export const serviceName = 'License Service';
export const assetsPath = '/dashboard-assets';

/** Sign-in failures the auth routes redirect to (`/?error=...`); anything else is ignored. */
const signInErrors: Record<string, string> = {
  auth_failed: 'Sign-in failed. Please try again.',
  rate_limited: 'The identity provider is rate limiting sign-ins; wait a minute and try again.',
  no_user: 'The identity provider returned no user.',
};

export function signInErrorMessage(code: unknown): string | undefined {
  return typeof code === 'string' && Object.hasOwn(signInErrors, code) ? signInErrors[code] : undefined;
}

interface LayoutOptions { title: string; body: Raw; username?: string; script?: boolean }

function layout({ title, body, username, script }: LayoutOptions): string {
  return '<!doctype html>\n' + html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${serviceName}</title>
<link rel="icon" href="${assetsPath}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${assetsPath}/dashboard.css">
${script ? html`<script src="${assetsPath}/dashboard.js" defer></script>` : ''}
</head>
<body>
<header class="topbar">
  <a class="brand" href="/"><img src="${assetsPath}/favicon.svg" alt="" width="28" height="28"><span>${serviceName}</span></a>
  <nav class="topbar-nav">
    ${username !== undefined
      ? html`<span class="whoami" title="Signed in">${username}</span><a class="button button-ghost" href="/auth/logout">Sign out</a>`
      : ''}
  </nav>
</header>
<main class="container">
${body}
</main>
<footer class="footer">${serviceName} · <a href="/healthz">health</a></footer>
</body>
</html>
`.html;
}

export function anonymousPage(errorCode: unknown): string {
  const message = signInErrorMessage(errorCode);
  return layout({
    title: 'Sign in',
    body: html`<section class="hero card">
  <h1>${serviceName}</h1>
  <p class="lead">Issues and validates software licenses. Administrators manage products, customers and licenses here;
  customers see their own licenses, their usage and their remaining credits.</p>
  ${message ? html`<p class="alert alert-error" role="alert">${message}</p>` : ''}
  <p><a class="button button-primary button-large" href="/auth/idp">Sign in</a></p>
  <p class="muted small">You sign in with your account at the identity provider. Applications validate licenses
  through <code>POST /api/license/validate</code> and need no sign-in.</p>
</section>`,
  });
}

export function noAccessPage(username: string): string {
  return layout({
    title: 'No access',
    username,
    body: html`<section class="card narrow">
  <h1>No access</h1>
  <p>You are signed in as <strong>${username}</strong>, but this account has no access. Ask an administrator.</p>
  <p><a class="button button-primary" href="/auth/logout">Sign out</a></p>
</section>`,
  });
}

/** The page for a path that does not exist (every method); `/api` paths answer JSON instead. */
export function notFoundPage(username?: string): string {
  return layout({
    title: 'Page not found',
    username,
    body: html`<section class="card narrow">
  <h1>Page not found</h1>
  <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
  <p><a class="button button-primary" href="/">Go to the dashboard</a></p>
</section>`,
  });
}

/** The two-factor gate of an admin session: verify a code, or set two-factor up when it is required. */
export function twoFactorPage(username: string, step: 'verify' | 'setup'): string {
  const verify = html`<form id="two-factor-verify" class="stack" autocomplete="off">
  <label for="two-factor-code">Code from your authenticator app, or a backup code</label>
  <input id="two-factor-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="64" autofocus>
  <button class="button button-primary" type="submit">Verify</button>
  <p class="alert alert-error" data-error role="alert" hidden></p>
</form>`;
  const setup = html`<div id="two-factor-setup" class="stack">
  <p id="two-factor-setup-intro">Two-factor authentication is required for administrators. Set it up with an authenticator app.</p>
  <button id="two-factor-setup-start" class="button button-primary" type="button">Start setup</button>
  <div id="two-factor-setup-secret" class="stack" hidden>
    <img id="two-factor-qr" alt="QR code of the two-factor secret" width="200" height="200">
    <p class="small">Or enter this secret by hand: <code id="two-factor-secret"></code></p>
    <form id="two-factor-enable" class="stack" autocomplete="off">
      <label for="two-factor-enable-code">Code shown by the app</label>
      <input id="two-factor-enable-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="16">
      <button class="button button-primary" type="submit">Enable two-factor</button>
    </form>
  </div>
  <div id="two-factor-backup" class="stack" hidden>
    <p><strong>Two-factor is on.</strong> Keep these backup codes somewhere safe; each works once.</p>
    <ul id="two-factor-backup-codes" class="codes"></ul>
    <button id="two-factor-continue" class="button button-primary" type="button">Continue to the dashboard</button>
  </div>
  <p class="alert alert-error" data-error role="alert" hidden></p>
</div>`;
  return layout({
    title: 'Two-factor verification',
    username,
    script: true,
    body: html`<section class="card narrow">
  <h1>Two-factor verification</h1>
  <p class="muted">Signed in as <strong>${username}</strong>. This session needs two-factor verification before the dashboard opens.</p>
  ${step === 'verify' ? verify : setup}
</section>`,
  });
}

const number = (value: number) => value.toLocaleString('en-US');

function stat(id: string, label: string, value: number, note?: Raw | string): Raw {
  return html`<div class="stat" data-stat="${id}"><span class="stat-value">${number(value)}</span><span class="stat-label">${label}</span>${note ? html`<span class="stat-note">${note}</span>` : ''}</div>`;
}

function date(iso: string | null): Raw {
  if (!iso) return html`<span class="muted">Never</span>`;
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(0, 10)}</time>`;
}

const stateBadge = (state: string) => html`<span class="badge badge-${state}">${state}</span>`;
const limit = (used: number, max: number) =>
  html`<span class="nowrap">${used} / ${max === 0 ? html`<span class="muted" title="unlimited">∞</span>` : max}</span>`;

const adminApi: Array<[string, string, string]> = [
  ['GET, POST', '/api/products', 'Products; PUT, DELETE /api/products/:id'],
  ['GET, POST', '/api/customers', 'Customers; GET, PUT, DELETE /api/customers/:id'],
  ['GET, POST', '/api/licenses', 'Licenses (filters: product, customer, licenseType, active, suspended, revoked, expired, search)'],
  ['POST', '/api/licenses/:id/suspend', 'Also /reactivate and /revoke'],
  ['POST', '/api/license/rotate', 'New key for a license; /api/license/clear empties its IP and HWID lists'],
  ['GET, PUT', '/api/admin/config', 'Runtime configuration: panic mode and the public rate limit'],
  ['GET, POST', '/api/admin/panic', 'Panic mode switch, body { "enabled": true | false }'],
  ['GET', '/api/audit', 'Audit log'],
  ['GET, POST', '/api/automated-actions', 'Automated actions'],
  ['POST', '/api/auth/token', 'A JWT for API clients (Authorization: Bearer)'],
  ['GET', '/api/2fa/status', 'Two-factor: /setup, /enable, /verify, /disable'],
];

export interface AdminPageData {
  username: string;
  counts: DashboardCounts;
  recent: LicenseRowView[];
  panicMode: boolean;
}

export function adminPage({ username, counts, recent, panicMode }: AdminPageData): string {
  const { licenses, validations } = counts;
  const panic = html`<section class="card panic ${panicMode ? 'panic-on' : ''}" id="panic">
  <div>
    <h2>Panic mode <span class="badge ${panicMode ? 'badge-danger' : 'badge-active'}" data-panic-state="${panicMode ? 'on' : 'off'}">${panicMode ? 'On' : 'Off'}</span></h2>
    <p class="muted">${panicMode
      ? 'Validation, the customer API and the marketplace receiver answer 503. Admin pages stay reachable.'
      : 'Turning it on makes validation, the customer API and the marketplace receiver answer 503 at once.'}</p>
    <p class="alert alert-error" data-error role="alert" hidden></p>
  </div>
  <button id="panic-toggle" class="button ${panicMode ? 'button-primary' : 'button-danger'}" type="button" data-enabled="${panicMode ? 'true' : 'false'}">${panicMode ? 'Turn panic mode off' : 'Turn panic mode on'}</button>
</section>`;

  const table = recent.length === 0
    ? html`<p class="muted">No licenses yet. Create one with <code>POST /api/licenses</code>.</p>`
    : html`<div class="table-wrap"><table>
  <thead><tr><th>Key</th><th>Product</th><th>Type</th><th>State</th><th>Expires</th></tr></thead>
  <tbody>${recent.map((l) => html`<tr><td><code class="key">${l.key}</code></td><td>${l.product}</td><td>${l.type}</td><td>${stateBadge(l.state)}</td><td>${date(l.expiresAt)}</td></tr>`)}</tbody>
</table></div>`;

  return layout({
    title: 'Admin dashboard',
    username,
    script: true,
    body: html`<div class="page-head"><h1>Admin dashboard</h1><p class="muted">Signed in as <strong>${username}</strong> (administrator).</p></div>
${panicMode ? html`<p class="alert alert-warning" role="status">Panic mode is on: applications cannot validate licenses right now.</p>` : ''}
<section class="stats">
  ${stat('products', 'Products', counts.products)}
  ${stat('customers', 'Customers', counts.customers)}
  ${stat('licenses-total', 'Licenses', licenses.total, html`${number(licenses.revoked)} revoked`)}
  ${stat('licenses-active', 'Active', licenses.active)}
  ${stat('licenses-suspended', 'Suspended', licenses.suspended)}
  ${stat('licenses-expired', 'Expired', licenses.expired)}
  ${stat('validations', 'Validations, last 24 h', validations.total)}
  <div class="stat stat-split" data-stat="validations-split">
    <span><strong data-stat="validations-success">${number(validations.success)}</strong> success</span>
    <span><strong data-stat="validations-blocked">${number(validations.blocked)}</strong> blocked</span>
    <span><strong data-stat="validations-invalid">${number(validations.invalid)}</strong> invalid</span>
  </div>
</section>
<div class="grid-2">
  ${panic}
  <section class="card">
    <h2>Exports</h2>
    <ul class="links">
      <li><a href="/api/export/licenses/csv">Licenses (CSV)</a></li>
      <li><a href="/api/export/licenses/pdf">Licenses (PDF)</a></li>
      <li><a href="/api/export/transactions/csv">Transactions (CSV)</a></li>
      <li><a href="/api/export/summary/pdf">Summary report (PDF)</a></li>
    </ul>
  </section>
</div>
<section class="card">
  <div class="card-head"><h2>Recent licenses</h2><span class="muted small">the ${number(recent.length)} most recent of ${number(licenses.total)}</span></div>
  ${table}
</section>
<section class="card">
  <h2>Admin API</h2>
  <p class="muted small">JSON endpoints; this session works for them from the browser, API clients use a JWT (<code>Authorization: Bearer</code>).
  Writes from a session need the <code>X-CSRF-Token</code> header from <code>GET /api/csrf-token</code>.</p>
  <div class="table-wrap"><table class="api">
    <thead><tr><th>Method</th><th>Path</th><th>What</th></tr></thead>
    <tbody>${adminApi.map(([method, path, what]) => html`<tr><td><code>${method}</code></td><td><code>${path}</code></td><td>${what}</td></tr>`)}</tbody>
  </table></div>
</section>`,
  });
}

export interface CustomerPageData { username: string; customerName: string; licenses: LicenseRowView[]; panicMode: boolean }

export function customerPage({ username, customerName, licenses, panicMode }: CustomerPageData): string {
  let content: Raw;
  if (panicMode) {
    content = html`<p class="alert alert-warning" role="status">The service is temporarily unavailable. Please try again later.</p>`;
  } else if (licenses.length === 0) {
    content = html`<p class="muted">You have no licenses yet.</p>`;
  } else {
    content = html`<div class="table-wrap"><table>
  <thead><tr><th>Key</th><th>Product</th><th>Type</th><th>State</th><th>Expires</th><th>IPs</th><th>Devices (HWID)</th><th>Credits</th></tr></thead>
  <tbody>${licenses.map((l) => html`<tr>
    <td><code class="key">${l.key}</code></td><td>${l.product}</td><td>${l.type}</td><td>${stateBadge(l.state)}</td><td>${date(l.expiresAt)}</td>
    <td>${limit(l.ips.used, l.ips.limit)}</td><td>${limit(l.hwids.used, l.hwids.limit)}</td>
    <td class="nowrap">${l.credits ? html`${number(l.credits.remaining)} <span class="muted">of ${number(l.credits.total)} left</span>` : html`<span class="muted">—</span>`}</td>
  </tr>`)}</tbody>
</table></div>`;
  }
  return layout({
    title: 'Your licenses',
    username,
    body: html`<div class="page-head"><h1>Your licenses</h1><p class="muted">Signed in as <strong>${username}</strong> (customer ${customerName}).</p></div>
<section class="card">${content}</section>`,
  });
}
