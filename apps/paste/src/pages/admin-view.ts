import type { ApiKeySummary } from '../api-keys/api-key.repository.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import { autoDeleteChoices, slugCharacterSets } from '../settings/settings.schema.js';
import type { Statistics } from '../stats/stats.service.js';
import { html, layout, type Raw } from './html.js';

const number = (name: keyof PasteSettings, label: string, value: number, min: number, max: number, step = '1') => html`
  <label class="field"><span class="label">${label}</span>
    <input type="number" name="${name}" value="${value}" min="${min}" max="${max}" step="${step}" required></label>`;

const checkbox = (name: keyof PasteSettings, label: string, checked: boolean) => html`
  <label class="check"><input type="checkbox" name="${name}" ${checked ? 'checked' : ''}> ${label}</label>`;

const select = (name: keyof PasteSettings, label: string, options: readonly string[], value: string, text = (o: string) => o) => html`
  <label class="field"><span class="label">${label}</span>
    <select name="${name}">${options.map((option) => html`<option value="${option}" ${option === value ? 'selected' : ''}>${text(option)}</option>`)}</select></label>`;

const form = (endpoint: string, title: string, body: Raw, button = 'Save') => html`
<section class="card">
  <h2>${title}</h2>
  <form class="admin-form stack" data-endpoint="${endpoint}" novalidate>
    ${body}
    <div class="actions"><p class="form-status small" role="status"></p><button type="submit" class="button">${button}</button></div>
  </form>
</section>`;

/** The owner's dashboard: statistics and every owner action, driven by /static/app.js. */
export function adminPage(settings: PasteSettings, stats: Statistics, keys: ApiKeySummary[], username: string): string {
  const figures: [string, string | number][] = [
    ['Pastes', stats.totalPastes], ['Views', stats.totalViews], ['Last 30 days', stats.last30Days],
    ['API requests', stats.apiUsage], ['Average size', stats.avgPasteSize], ['Most viewed', stats.mostViewed],
    ['Average views', stats.avgViews], ['Storage', stats.storageUsed],
  ];
  const body = html`
<div class="admin-head">
  <h1>Site settings</h1>
  <span class="muted small">Signed in as <strong>${username}</strong> · <a href="/auth/logout">Sign out</a></span>
</div>
<section class="stats">${figures.map(([label, value]) => html`<div class="stat"><span class="stat-value">${value}</span><span class="stat-label">${label}</span></div>`)}</section>
<div class="admin-grid">
${form('/api/settings/general', 'General', html`
  <label class="field"><span class="label">Site name</span><input name="siteName" value="${settings.siteName}" maxlength="100" required></label>
  <label class="field"><span class="label">Description</span><input name="siteDescription" value="${settings.siteDescription}" maxlength="500"></label>
  <div class="options">
    <label class="field"><span class="label">Primary colour</span><input type="color" name="primaryColor" value="${expand(settings.primaryColor)}"></label>
    <label class="field"><span class="label">Secondary colour</span><input type="color" name="secondaryColor" value="${expand(settings.secondaryColor)}"></label>
  </div>`)}
${form('/api/settings/security', 'Security and limits', html`
  <div class="options">
    ${number('webRateLimit', 'Web requests per window', settings.webRateLimit, 1, 1_000_000)}
    ${number('webRateLimitWindow', 'Web window (minutes)', settings.webRateLimitWindow, 1, 10_080)}
    ${number('apiRateLimit', 'API requests per window', settings.apiRateLimit, 1, 1_000_000)}
    ${number('apiRateLimitWindow', 'API window (minutes)', settings.apiRateLimitWindow, 1, 10_080)}
    ${number('maxPasteSize', 'Maximum paste size (MB)', settings.maxPasteSize, 0.01, 100, '0.01')}
  </div>
  ${checkbox('apiAccess', 'Allow API access', settings.apiAccess)}
  ${checkbox('apiKeyProtection', 'Require an API key for API requests', settings.apiKeyProtection)}`)}
${form('/api/settings/advanced', 'Pastes', html`
  <div class="options">
    ${select('autoDeleteInactive', 'Delete pastes inactive for', autoDeleteChoices, settings.autoDeleteInactive, (o) => (o === 'never' ? 'Never' : `${o} days`))}
    ${number('slugLength', 'Slug length', settings.slugLength, 4, 64)}
    ${select('slugCharacterSet', 'Slug characters', slugCharacterSets, settings.slugCharacterSet)}
  </div>
  ${checkbox('syntaxHighlighting', 'Syntax highlighting', settings.syntaxHighlighting)}`)}
<section class="card">
  <h2>Branding</h2>
  <div class="options">
    ${(['logo', 'favicon'] as const).map((kind) => html`
    <form class="admin-form upload-form stack" data-endpoint="/api/upload/${kind}" data-upload="${kind}" novalidate>
      <div class="upload-row"><img src="${kind === 'logo' ? settings.logo : settings.favIcon}" alt="" class="upload-preview">
      <label class="field"><span class="label">${kind === 'logo' ? 'Logo' : 'Favicon'} (JPEG, PNG, GIF, SVG, ICO; 2 MB)</span>
        <input type="file" name="${kind}" accept=".jpg,.jpeg,.png,.gif,.svg,.ico,image/*" required></label></div>
      <div class="actions"><p class="form-status small" role="status"></p><button type="submit" class="button">Upload</button></div>
    </form>`)}
  </div>
</section>
<section class="card">
  <h2>API keys</h2>
  <p class="muted small">Programs send a key in <code>X-API-Key</code> or <code>Authorization: Bearer</code>. A key is shown once, when it is created.</p>
  ${keys.length ? html`<table class="keys"><thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
    ${keys.map((key) => html`<tr><td>${key.name}</td><td><code>${key.prefix}…</code></td><td>${date(key.createdAt)}</td><td>${key.lastUsedAt ? date(key.lastUsedAt) : 'never'}</td>
      <td><button type="button" class="button button-ghost button-small" data-delete-key="${key.id}">Delete</button></td></tr>`)}
  </tbody></table>` : html`<p class="muted">No API keys yet.</p>`}
  <form class="admin-form stack" data-endpoint="/api/settings/api-keys" data-creates-key novalidate>
    <label class="field"><span class="label">New key name</span><input name="name" maxlength="100" required placeholder="e.g. deploy script"></label>
    <div class="actions"><p class="form-status small" role="status"></p><button type="submit" class="button">Create key</button></div>
  </form>
</section>
<section class="card danger">
  <h2>Delete every paste</h2>
  <p class="muted">This cannot be undone.</p>
  <form class="admin-form" data-endpoint="/api/admin/clear-pastes" data-confirm="Delete every paste? This cannot be undone." novalidate>
    <div class="actions"><p class="form-status small" role="status"></p><button type="submit" class="button button-danger">Delete all pastes</button></div>
  </form>
</section>
</div>`;
  return layout(settings, { title: 'Site settings', body, script: true, bodyClass: 'admin' });
}

/** `<input type="color">` takes only #rrggbb. */
function expand(color: string): string {
  return /^#[0-9a-fA-F]{3}$/.test(color) ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color;
}

function date(value: Date): string {
  return value.toISOString().slice(0, 16).replace('T', ' ');
}
