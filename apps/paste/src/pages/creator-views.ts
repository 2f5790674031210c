import type { PasteSettings } from '../settings/settings.schema.js';
import type { PasteSummary } from '../pastes/paste.repository.js';
import { html, layout, raw } from './html.js';

export interface CreatedPageData {
  paste: PasteSummary;
  /** Absolute link of the paste. */
  link: string;
  deleteUrl: string;
  /** Inline SVG of the link's QR code. */
  qrSvg: string;
  /** How long this page stays available to the creator, in minutes. */
  availableMinutes: number;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function viewsLeft(paste: PasteSummary): string {
  if (paste.maxViews === null) return '';
  const left = Math.max(0, paste.maxViews - paste.viewsCount);
  if (left === 0) return ': its views are used up';
  return left === 1 ? ': one view is left for the person you send it to' : `: ${left} views are left for the people you send it to`;
}

/** The creator's page after the web form: link, QR code, delete link and limits; never the content. */
export function createdPage(settings: PasteSettings, data: CreatedPageData): string {
  const { paste } = data;
  const allowed = paste.maxViews === null ? 'Unlimited' : plural(paste.maxViews, 'view', 'views');
  const body = html`
<section class="card created">
  <div class="created-head">
    <h1>Your paste is ready</h1>
    <p class="muted">Share the link below. Opening this page counted no view${viewsLeft(paste)}.</p>
  </div>
  <div class="created-grid">
    <div class="stack">
      <div>
        <label class="label" for="paste-link">Link to share</label>
        <div class="copy-row">
          <input type="text" id="paste-link" value="${data.link}" readonly spellcheck="false">
          <button type="button" class="button" data-target="paste-link">Copy link</button>
        </div>
      </div>
      <dl class="limits">
        <div><dt>Views allowed</dt><dd>${allowed}</dd></div>
        <div><dt>Views so far</dt><dd>${paste.viewsCount}</dd></div>
        <div><dt>Password protected</dt><dd>${paste.hasPassword ? 'Yes' : 'No'}</dd></div>
      </dl>
      ${paste.hasPassword ? html`<p class="muted small">Send the password separately from the link.</p>` : ''}
      <div class="delete-box">
        <label class="label" for="delete-link">Delete link</label>
        <p class="muted small">Keep it private: anyone who has it can delete the paste. This page shows it for ${data.availableMinutes} minutes.</p>
        <div class="copy-row">
          <input type="text" id="delete-link" value="${data.deleteUrl}" readonly spellcheck="false">
          <button type="button" class="button button-ghost" data-target="delete-link">Copy delete link</button>
        </div>
        <p><a class="button button-danger" href="${data.deleteUrl}">Delete this paste…</a></p>
      </div>
    </div>
    <figure class="qr">
      ${raw(data.qrSvg)}
      <figcaption class="muted small">Scan to open the paste</figcaption>
    </figure>
  </div>
</section>`;
  return layout(settings, { title: 'Paste created', body, script: true });
}

/** Asks before deleting. The page script copies the token from the link's fragment into the form. */
export function deleteConfirmPage(settings: PasteSettings, slug: string, error?: string): string {
  const body = html`
<section class="card narrow">
  <h1>Delete this paste?</h1>
  <p>Paste <code>${slug}</code> will be deleted for everyone who has its link. This cannot be undone.</p>
  <form method="post" action="/paste/${slug}/delete" id="delete-form" class="stack">
    ${error ? html`<div class="alert alert-error" role="alert">${error}</div>` : ''}
    <div id="delete-token-missing" class="alert alert-error" role="alert" hidden>This address carries no delete token. Open the full delete link you were given when the paste was created.</div>
    <input type="hidden" name="token" id="delete-token">
    <div class="actions">
      <a class="button button-ghost" href="/">Cancel</a>
      <button type="submit" class="button button-danger" id="delete-button">Delete</button>
    </div>
    <noscript><p class="alert alert-error">This page reads the delete token from the link with JavaScript. Programs can send DELETE /api/paste/${slug} with the header X-Delete-Token.</p></noscript>
  </form>
</section>`;
  return layout(settings, { title: 'Delete paste', body, script: true });
}

export function deletedPage(settings: PasteSettings, slug: string): string {
  const body = html`
<section class="card narrow">
  <h1>Paste deleted</h1>
  <p>Paste <code>${slug}</code> has been deleted. Its link now answers “not found”.</p>
  <p><a class="button" href="/">Create a new paste</a></p>
</section>`;
  return layout(settings, { title: 'Paste deleted', body });
}
