import type { PasteSettings } from '../settings/settings.schema.js';
import type { ViewedPaste } from '../pastes/paste.repository.js';
import type { Highlighted } from './highlight.js';
import { html, layout, raw } from './html.js';

/** What a failed sign-in (the provider's callback redirects to `/?error=...`) tells the visitor. */
const signInErrors: Record<string, string> = {
  auth_failed: 'Sign-in failed. Please try again.',
  rate_limited: 'The sign-in provider is busy (rate limited). Please try again in a moment.',
  no_user: 'The sign-in provider returned no user.',
};

export function homePage(settings: PasteSettings, signInError?: string): string {
  const notice = signInError ? signInErrors[signInError] : undefined;
  const body = html`
${notice ? html`<div class="alert alert-error" role="alert">${notice}</div>` : ''}
<section class="card">
  <h1>New paste</h1>
  <p class="muted">${settings.siteDescription}</p>
  <form id="paste-form" class="paste-form" method="post" action="/api/paste" novalidate>
    <div id="form-error" class="alert alert-error" role="alert" hidden></div>
    <label for="content" class="label">Content</label>
    <textarea id="content" name="content" rows="16" spellcheck="false" placeholder="Paste your text or code here" required></textarea>
    <div class="options">
      <label class="field"><span class="label">Expire after views <span class="muted">(optional)</span></span>
        <input type="number" id="maxViews" name="maxViews" min="1" step="1" inputmode="numeric" placeholder="Never"></label>
      <label class="field"><span class="label">Password <span class="muted">(optional)</span></span>
        <input type="password" id="password" name="password" autocomplete="new-password" placeholder="No password"></label>
    </div>
    <div class="actions">
      <span class="muted small">Up to ${formatSize(settings.maxPasteSize)}</span>
      <button type="submit" class="button" id="submit">Create paste</button>
    </div>
    <noscript><p class="alert alert-error">Creating a paste from this page needs JavaScript. Programs can POST JSON to /api/paste.</p></noscript>
  </form>
</section>`;
  return layout(settings, { title: '', body, script: true });
}

export function pastePage(settings: PasteSettings, paste: ViewedPaste, code: Highlighted): string {
  const numbers = Array.from({ length: code.lines }, (_, index) => index + 1).join('\n');
  const views = paste.maxViews === null ? `${paste.viewsCount} ${paste.viewsCount === 1 ? "view" : "views"}` : `${paste.viewsCount} of ${paste.maxViews} views`;
  const lastView = paste.maxViews !== null && paste.viewsCount >= paste.maxViews;
  const body = html`
${lastView ? html`<div class="alert alert-warning" role="status">This was the last allowed view: the paste will not be shown again. Copy what you need now.</div>` : ''}
<section class="card paste">
  <div class="paste-bar">
    <div class="paste-meta">
      <h1 class="paste-title">Paste <code>${paste.slug}</code></h1>
      <span class="muted small">${views} · created <time datetime="${paste.createdAt.toISOString()}">${paste.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>${code.language ? ` · ${code.language}` : ''}</span>
    </div>
    <div class="paste-actions">
      <button type="button" class="button button-ghost" id="copy-button" data-target="paste-code">Copy</button>
      <a class="button button-ghost" href="/paste/${paste.slug}/raw">Raw</a>
    </div>
  </div>
  <div class="code"><pre class="gutter" aria-hidden="true">${numbers}</pre><pre class="code-body"><code id="paste-code" class="hljs">${raw(code.html)}</code></pre></div>
</section>`;
  return layout(settings, { title: `Paste ${paste.slug}`, body, script: true });
}

export function passwordPage(settings: PasteSettings, slug: string, error?: string): string {
  const body = html`
<section class="card narrow">
  <h1>Password required</h1>
  <p class="muted">Paste <code>${slug}</code> is protected. Enter its password to view it.</p>
  <form method="post" action="/paste/${slug}/verify" class="stack">
    ${error ? html`<div class="alert alert-error" role="alert">${error}</div>` : ''}
    <label class="field"><span class="label">Password</span>
      <input type="password" name="password" autocomplete="current-password" required autofocus></label>
    <button type="submit" class="button">Unlock</button>
  </form>
</section>`;
  return layout(settings, { title: 'Password required', body });
}

const errorTitles: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authorised',
  403: 'Forbidden',
  404: 'Not found',
  410: 'This paste has expired',
  429: 'Too many requests',
  500: 'Something went wrong',
};

const errorHints: Record<number, string> = {
  404: 'There is no paste at this address. Check the link, or create a new paste.',
  410: 'It reached its view limit and can no longer be shown.',
  429: 'You have made too many requests. Please wait a while and try again.',
  500: 'The server could not answer this request. Please try again later.',
};

export function errorPage(settings: PasteSettings, status: number, message: string): string {
  const title = errorTitles[status] ?? (status >= 500 ? errorTitles[500]! : 'Error');
  const body = html`
<section class="card narrow error-page">
  <p class="status-code">${status}</p>
  <h1>${title}</h1>
  <p>${message}</p>
  ${errorHints[status] ? html`<p class="muted">${errorHints[status]}</p>` : ''}
  <p><a class="button" href="/">Create a new paste</a></p>
</section>`;
  return layout(settings, { title, body });
}

function formatSize(megabytes: number): string {
  return megabytes >= 1 ? `${Number(megabytes.toFixed(2))} MB` : `${Math.round(megabytes * 1024)} KB`;
}
