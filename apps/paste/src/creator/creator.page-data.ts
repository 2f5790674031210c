import type { PasteSummary } from '../pastes/pastes.service.js';
import { expiryView } from '../rendering/expiry-text.js';
import { siteView } from '../rendering/site-view.js';
import type { PasteSettings } from '../settings/settings.schema.js';

// What the creator's pages receive: plain data, every text still unescaped (the views escape it).

export interface CreatedPageInput {
  paste: PasteSummary;
  /** Absolute link of the paste. */
  link: string;
  deleteUrl: string;
  /** Inline SVG of the link's QR code. */
  qrSvg: string;
  /** How long this page stays available to the creator, in minutes. */
  availableMinutes: number;
  now: Date;
}

function viewsLeft(paste: PasteSummary): string {
  if (paste.maxViews === null) return '';
  const left = Math.max(0, paste.maxViews - paste.viewsCount);
  if (left === 0) return ': its views are used up';
  return left === 1
    ? ': one view is left for the person you send it to'
    : `: ${left} views are left for the people you send it to`;
}

export function createdData(settings: PasteSettings, input: CreatedPageInput) {
  const { paste } = input;
  return {
    site: siteView(settings),
    title: 'Paste created',
    script: true,
    // An encrypted paste's QR code holds its key: the browser draws it (app.js), never the server.
    scripts: paste.encrypted ? ['/static/vendor/qrcode/qrcode.js'] : [],
    link: input.link,
    deleteUrl: input.deleteUrl,
    qrSvg: input.qrSvg,
    availableMinutes: input.availableMinutes,
    viewsLeft: viewsLeft(paste),
    allowed: paste.maxViews === null ? 'Unlimited' : `${paste.maxViews} ${paste.maxViews === 1 ? 'view' : 'views'}`,
    viewsCount: paste.viewsCount,
    hasPassword: paste.hasPassword,
    expires: expiryView(paste.expiresAt, input.now),
    revealOnClick: paste.revealOnClick,
    previewFetches: paste.previewFetches,
    encrypted: paste.encrypted,
  };
}

export function deleteConfirmData(settings: PasteSettings, slug: string, error?: string) {
  return { site: siteView(settings), title: 'Delete paste', script: true, slug, error };
}

export function deletedData(settings: PasteSettings, slug: string) {
  return { site: siteView(settings), title: 'Paste deleted', slug };
}
