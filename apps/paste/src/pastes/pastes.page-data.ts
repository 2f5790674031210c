import type { PasteSettings } from '../settings/settings.schema.js';
import { expiryView } from '../rendering/expiry-text.js';
import type { Highlighted } from '../rendering/highlight.js';
import { AUTO_DETECT_LANGUAGES } from '../rendering/languages.js';
import { pageMessageKey } from '../rendering/page-messages.js';
import { shortDate, siteView } from '../rendering/site-view.js';
import type { PasteSummary, ViewedPaste } from './pastes.repository.js';
import type { AttachmentDownload } from '../attachments/attachments.service.js';

/** A plain paste's files as its page lists them: name (the view numbers an unnamed one), bytes, download link. */
function fileList(attachments: AttachmentDownload[]) {
  return attachments.map((file) => ({ name: file.name ?? undefined, size: file.size, url: file.url }));
}

// What each paste page's view receives: plain data, every text still unescaped (the views escape it).

/** "1\n2\n…\nlines" (empty for none), built in one loop: Array.from with a map function and a join cost a page far more. */
function lineNumbers(lines: number): string {
  let text = lines >= 1 ? '1' : '';
  for (let line = 2; line <= lines; line++) text += `\n${line}`;
  return text;
}

export function pasteData(
  settings: PasteSettings,
  paste: ViewedPaste,
  code: Highlighted,
  now: Date = new Date(),
  attachments: AttachmentDownload[] = [],
) {
  const views =
    paste.maxViews === null
      ? `${paste.viewsCount} ${paste.viewsCount === 1 ? 'view' : 'views'}`
      : `${paste.viewsCount} of ${paste.maxViews} views`;
  return {
    site: siteView(settings),
    title: paste.title ?? undefined,
    titleKey: paste.title ? undefined : 'paste.pasteSlug',
    titleVars: { slug: paste.slug },
    script: true,
    paste: {
      slug: paste.slug,
      viewsCount: paste.viewsCount,
      maxViews: paste.maxViews,
      title: paste.title,
      markdown: code.markdown === true,
      // A rendered Markdown page copies its source (the Copy button reads it from a hidden field).
      source: code.markdown ? paste.content : undefined,
      views,
      lastView: paste.maxViews !== null && paste.viewsCount >= paste.maxViews,
      createdAt: paste.createdAt.toISOString(),
      createdAtText: shortDate(paste.createdAt),
      language: code.language,
      lineNumbers: lineNumbers(code.lines),
      codeHtml: code.html,
      expires: expiryView(paste.expiresAt, now),
      files: fileList(attachments),
    },
  };
}

/** The module scripts of an encrypted paste's page: the format, then the page that decrypts and renders. */
const decryptScripts = [
  '/static/vendor/markdown-it/markdown-it.umd.min.js',
  '/static/vendor/dompurify/purify.min.js',
  '/static/vendor/highlight/highlight.min.js',
];

const viewsText = (paste: { viewsCount: number; maxViews: number | null }) =>
  paste.maxViews === null
    ? `${paste.viewsCount} ${paste.viewsCount === 1 ? 'view' : 'views'}`
    : `${paste.viewsCount} of ${paste.maxViews} views`;

/** What both kinds of encrypted page show: the counts and limits the server knows, and how the script renders. */
function encryptedPageData(
  settings: PasteSettings,
  paste: Pick<ViewedPaste, 'slug' | 'viewsCount' | 'maxViews' | 'createdAt' | 'expiresAt'>,
  now: Date,
) {
  return {
    site: siteView(settings),
    titleKey: 'paste.encryptedTitle',
    script: true,
    scripts: decryptScripts,
    modules: ['/static/paste-view.js'],
    paste: {
      slug: paste.slug,
      viewsCount: paste.viewsCount,
      maxViews: paste.maxViews,
      views: viewsText(paste),
      lastView: paste.maxViews !== null && paste.viewsCount >= paste.maxViews,
      createdAt: paste.createdAt.toISOString(),
      createdAtText: shortDate(paste.createdAt),
      expires: expiryView(paste.expiresAt, now),
      highlight: settings.syntaxHighlighting,
      autoDetect: AUTO_DETECT_LANGUAGES.join(' '),
      envelope: undefined as string | undefined,
      /** The files of a paste with its envelope in the page (JSON for its script; names are inside the ciphertext). */
      files: undefined as string | undefined,
    },
  };
}

/**
 * An end-to-end encrypted paste's page (a paste made before the key check: wave 3), its view
 * counted: the envelope for the page's script, which decrypts it with the link's key and renders
 * it (Markdown sanitised by the same allow-list as the server's, code highlighted) in the browser.
 */
export function encryptedPasteData(
  settings: PasteSettings,
  paste: ViewedPaste,
  now: Date = new Date(),
  attachments: AttachmentDownload[] = [],
) {
  const data = encryptedPageData(settings, paste, now);
  if (attachments.length > 0) data.paste.files = JSON.stringify(attachments).replace(/</g, '\\u003c');
  // Base64url and digits only (the server checked every field), so it sits in the page as it is.
  data.paste.envelope = paste.content.replace(/</g, '\\u003c');
  return data;
}

/**
 * The page of an encrypted paste with a key check (decisions.md wave 4), nothing counted: no
 * envelope; its script sends the link's key check and gets the envelope (and the counts) back,
 * or says the link is missing its key or has the wrong one.
 */
export function keyNeededPasteData(settings: PasteSettings, paste: PasteSummary, now: Date = new Date()) {
  const data = encryptedPageData(settings, paste, now);
  // Nothing was counted: a last view has not happened yet.
  data.paste.lastView = false;
  return data;
}

/** What a link-preview agent gets: the site's name, never the paste. */
export function previewData(settings: PasteSettings) {
  return { site: siteView(settings), title: '' };
}

/** The "Show paste" page of a reveal-on-click paste: no content, a password field when it needs one. */
export function revealData(settings: PasteSettings, slug: string, needsPassword: boolean, error?: string) {
  return {
    site: siteView(settings),
    titleKey: 'reveal.title',
    script: true,
    slug,
    needsPassword,
    error,
    errorKey: pageMessageKey(error),
  };
}

export function passwordData(settings: PasteSettings, slug: string, error?: string) {
  return {
    site: siteView(settings),
    titleKey: 'password.title',
    script: true,
    slug,
    error,
    errorKey: pageMessageKey(error),
  };
}
