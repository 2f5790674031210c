import { pageMessageKey } from '../rendering/page-messages.js';
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

/** What the page says of the views left, as a key of the locales files and its count ('' for no limit). */
function viewsLeft(paste: PasteSummary): { key: string; count: number } | undefined {
  if (paste.maxViews === null) return undefined;
  const left = Math.max(0, paste.maxViews - paste.viewsCount);
  return { key: left === 0 ? 'created.leftNone' : left === 1 ? 'created.leftOne' : 'created.leftMany', count: left };
}

export function createdData(settings: PasteSettings, input: CreatedPageInput) {
  const { paste } = input;
  return {
    site: siteView(settings),
    titleKey: 'created.pageTitle',
    script: true,
    // An encrypted paste's QR code holds its key: the browser draws it (app.js), never the server.
    scripts: paste.encrypted ? ['/static/vendor/qrcode/qrcode.js'] : [],
    link: input.link,
    deleteUrl: input.deleteUrl,
    qrSvg: input.qrSvg,
    availableMinutes: input.availableMinutes,
    viewsLeft: viewsLeft(paste),
    maxViews: paste.maxViews,
    viewsCount: paste.viewsCount,
    hasPassword: paste.hasPassword,
    expires: expiryView(paste.expiresAt, input.now),
    revealOnClick: paste.revealOnClick,
    previewFetches: paste.previewFetches,
    encrypted: paste.encrypted,
  };
}

export function deleteConfirmData(settings: PasteSettings, slug: string, error?: string) {
  return {
    site: siteView(settings),
    titleKey: 'delete.pageTitle',
    script: true,
    slug,
    error,
    errorKey: pageMessageKey(error),
  };
}

export function deletedData(settings: PasteSettings, slug: string) {
  return { site: siteView(settings), titleKey: 'delete.deletedTitle', slug };
}
