import { pageMessageKey } from '../rendering/page-messages.js';
import type { ApiKeySummary } from '../api-keys/api-keys.service.js';
import type { PasteSettings } from '../settings/settings.schema.js';
import {
  autoDeleteChoices,
  MAX_ATTACHMENT_MEGABYTES,
  MEGABYTE,
  slugCharacterSets,
} from '../settings/settings.schema.js';
import type { PasteList } from '../moderation/moderation.schema.js';
import { humanBytes, type DashboardStatistics } from '../stats/stats.service.js';
import { EXPIRY_PRESETS } from '../rendering/expiry-text.js';
import { languageChoices } from '../rendering/languages.js';
import { shortDate, siteView } from '../rendering/site-view.js';

// What each page's view receives: plain data, every text still unescaped (the views escape it).

/** What a failed sign-in (the provider's callback redirects to `/?error=...`) tells the visitor. */
const signInErrors: Record<string, string> = {
  auth_failed: 'Sign-in failed. Please try again.',
  rate_limited: 'The sign-in provider is busy (rate limited). Please try again in a moment.',
  no_user: 'The sign-in provider returned no user.',
  https_required:
    'Sign-in failed: the sign-in cookie could not be set over plain http. In production the session cookie is Secure, so browsers keep it only over https: open this site at its https:// address (behind a TLS-terminating proxy, the service needs TRUST_PROXY set).',
};

/** EXPIRY_PRESETS' labels in the locales files, in the same order. */
const EXPIRY_KEYS = ['never', '10m', '1h', '1d', '1w', '1mo'] as const;
const CHOICE_KEYS: Record<string, string> = { auto: 'home.autoDetect', plaintext: 'home.plainText' };

export function homeData(settings: PasteSettings, signInError: string | undefined) {
  return {
    site: siteView(settings),
    title: '',
    script: true,
    modules: ['/static/paste-form.js'],
    notice: signInError && Object.hasOwn(signInErrors, signInError) ? signInErrors[signInError] : undefined,
    maxSizeBytes: Math.round(settings.maxPasteSize * 1024 * 1024),
    maxAttachmentBytes: settings.maxAttachmentBytes,
    expiryOptions: EXPIRY_PRESETS.map(({ seconds }, index) => ({
      value: seconds === null ? '' : String(seconds),
      labelKey: `expiry.${EXPIRY_KEYS[index]}`,
    })),
    // The two choices in words are translated; the languages' names are the same everywhere.
    languages: languageChoices().map((choice) =>
      choice.value in CHOICE_KEYS ? { ...choice, labelKey: CHOICE_KEYS[choice.value] } : choice,
    ),
  };
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
  410: 'It reached its view limit or its time limit and can no longer be shown.',
  429: 'You have made too many requests. Please wait a while and try again.',
  500: 'The server could not answer this request. Please try again later.',
};

/**
 * An error page: its title and hint by status, the message in the visitor's language when it is
 * one the pages know (page-messages.ts), as it is otherwise. Keys of the locales files, and the
 * English texts for a caller without translations.
 */
export function errorData(settings: PasteSettings, status: number, message: string) {
  const titled = status in errorTitles ? status : status >= 500 ? 500 : undefined;
  return {
    site: siteView(settings),
    title: titled === undefined ? 'Error' : errorTitles[titled]!,
    titleKey: titled === undefined ? 'errors.error' : `errors.titles.${titled}`,
    status,
    message,
    messageKey: pageMessageKey(message),
    hint: errorHints[status],
    hintKey: status in errorHints ? `errors.hints.${status}` : undefined,
  };
}

/** `<input type="color">` takes only #rrggbb. */
function expand(color: string): string {
  return /^#[0-9a-fA-F]{3}$/.test(color) ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color;
}

const number = (
  name: keyof PasteSettings | 'maxAttachmentMegabytes',
  label: string,
  value: number,
  min: number,
  max: number,
  step = '1',
  hint?: string,
) => ({
  kind: 'number',
  type: 'number',
  name,
  label,
  value,
  hint,
  required: true,
  attributes: { min, max, step },
});

/**
 * The attachment limit in the page's megabytes, as the form sends it back: seven decimals give the
 * exact bytes again (an API-set limit that is no whole number of MB is not changed by saving the form).
 */
const attachmentMegabytes = (bytes: number) => Number((bytes / MEGABYTE).toFixed(7));
const checkbox = (name: keyof PasteSettings, label: string, checked: boolean) => ({
  kind: 'checkbox',
  name,
  label,
  checked,
});
const select = (
  name: keyof PasteSettings,
  label: string,
  choices: readonly string[],
  value: string,
  text = (o: string) => o,
) => ({
  kind: 'select',
  name,
  label,
  value,
  options: choices.map((choice) => ({ value: choice, label: text(choice) })),
});

/** The dashboard's "Pastes" section: one page of the owner's list, its search, and the link to the next page. */
export interface AdminPastesInput {
  list: PasteList;
  /** The search as typed ('' for none). */
  q: string;
  /** Whether this is a later page (then a link back to the first one is shown). */
  paged: boolean;
  /** What "expired" is measured against. */
  now: Date;
}

type ListedPaste = PasteList['pastes'][number];

/**
 * A paste that can no longer be opened is still listed until it is deleted (a used-up one stays
 * until the owner or auto-delete removes it; an expired one until the job, within a minute): the
 * list says so, since the Pastes figure leaves expired pastes out (decisions.md: they are gone).
 */
function stateBadge(paste: ListedPaste, now: Date) {
  if (paste.expiresAt !== null && new Date(paste.expiresAt) <= now) {
    return {
      text: 'Expired',
      tone: 'warning',
      title: 'Past its time limit: no longer shown, deleted within minutes, not counted in Pastes',
    };
  }
  if (paste.maxViews !== null && paste.viewsCount >= paste.maxViews) {
    return { text: 'Used up', tone: 'warning', title: 'Its views are used up: no longer shown' };
  }
  return undefined;
}

function limitsText(paste: ListedPaste): string {
  const limits = [];
  if (paste.maxViews !== null) limits.push(`${paste.maxViews} ${paste.maxViews === 1 ? 'view' : 'views'}`);
  if (paste.expiresAt !== null) limits.push(`until ${shortDate(new Date(paste.expiresAt))}`);
  if (paste.passwordProtected) limits.push('password');
  return limits.length ? limits.join(', ') : 'none';
}

function adminPastesData({ list, q, paged, now }: AdminPastesInput) {
  const href = (cursor?: string) => {
    const query = new URLSearchParams();
    if (q) query.set('q', q);
    if (cursor) query.set('cursor', cursor);
    const text = query.toString();
    return `/admin${text ? `?${text}` : ''}#pastes`;
  };
  return {
    q,
    rows: list.pastes.map((paste) => ({
      cells: [
        { text: paste.slug, href: `/paste/${paste.slug}`, badge: stateBadge(paste, now) },
        // The server cannot read an encrypted paste's title (nor its text). The size is what is stored
        // (an encrypted paste's envelope), so the sizes add up to the Storage figure above.
        paste.encrypted ? 'Encrypted paste' : (paste.title ?? '—'),
        humanBytes(paste.size),
        String(paste.viewsCount),
        limitsText(paste),
        shortDate(new Date(paste.createdAt)),
      ],
      actions: [
        {
          label: 'Delete',
          danger: true,
          attributes: { 'data-delete-paste': paste.slug, 'aria-label': `Delete paste ${paste.slug}` },
        },
      ],
    })),
    empty: q
      ? { title: 'No paste matches this search.', text: 'The search looks for part of a slug or a title.' }
      : { title: paged ? 'No more pastes.' : 'No pastes yet.' },
    nextHref: list.nextCursor ? href(list.nextCursor) : undefined,
    firstHref: paged ? href() : undefined,
  };
}

export function adminData(
  settings: PasteSettings,
  stats: DashboardStatistics,
  keys: ApiKeySummary[],
  pastes: AdminPastesInput,
) {
  return {
    site: siteView(settings),
    titleKey: 'admin.title',
    script: true,
    bodyClass: 'admin',
    currentPage: 'admin',
    pastes: adminPastesData(pastes),
    figures: [
      // The list below also shows expired pastes until the job deletes them, marked "Expired".
      { label: 'Pastes', value: stats.totalPastes, note: 'expired ones not counted' },
      ...[
        ['Views', stats.totalViews],
        ['Last 30 days', stats.last30Days],
        ['API requests', stats.apiUsage],
        ['Average size', stats.avgPasteSize],
        ['Most viewed', stats.mostViewed],
        ['Average views', stats.avgViews],
        ['Storage', stats.storageUsed],
        ['Encrypted', stats.encryptedPastes],
      ].map(([label, value]) => ({ label, value, note: undefined })),
    ],
    forms: [
      {
        endpoint: '/api/settings/general',
        title: 'General',
        fields: [
          {
            kind: 'text',
            name: 'siteName',
            label: 'Site name',
            value: settings.siteName,
            required: true,
            attributes: { maxlength: 100 },
          },
          {
            kind: 'text',
            name: 'siteDescription',
            label: 'Description',
            value: settings.siteDescription,
            attributes: { maxlength: 500 },
          },
          {
            kind: 'color',
            type: 'color',
            name: 'primaryColor',
            label: 'Primary colour',
            value: expand(settings.primaryColor),
          },
          {
            kind: 'color',
            type: 'color',
            name: 'secondaryColor',
            label: 'Secondary colour',
            value: expand(settings.secondaryColor),
          },
        ],
      },
      {
        endpoint: '/api/settings/security',
        title: 'Security and limits',
        fields: [
          number('webRateLimit', 'Web requests per window', settings.webRateLimit, 1, 1_000_000),
          number('webRateLimitWindow', 'Web window (minutes)', settings.webRateLimitWindow, 1, 10_080),
          number('apiRateLimit', 'API requests per window', settings.apiRateLimit, 1, 1_000_000),
          number('apiRateLimitWindow', 'API window (minutes)', settings.apiRateLimitWindow, 1, 10_080),
          number('maxPasteSize', 'Maximum paste size (MB)', settings.maxPasteSize, 0.01, 100, '0.01'),
          number(
            'maxAttachmentMegabytes',
            'Maximum attachments (MB)',
            attachmentMegabytes(settings.maxAttachmentBytes),
            0,
            MAX_ATTACHMENT_MEGABYTES,
            'any',
            `All of a paste's files together, up to ${MAX_ATTACHMENT_MEGABYTES} MB`,
          ),
          checkbox('apiAccess', 'Allow API access', settings.apiAccess),
          checkbox('apiKeyProtection', 'Require an API key for API requests', settings.apiKeyProtection),
        ],
      },
      {
        endpoint: '/api/settings/advanced',
        title: 'Paste settings',
        fields: [
          select(
            'autoDeleteInactive',
            'Delete pastes inactive for',
            autoDeleteChoices,
            settings.autoDeleteInactive,
            (o) => (o === 'never' ? 'Never' : `${o} days`),
          ),
          number('slugLength', 'Slug length', settings.slugLength, 4, 64),
          select('slugCharacterSet', 'Slug characters', slugCharacterSets, settings.slugCharacterSet),
          checkbox('syntaxHighlighting', 'Syntax highlighting', settings.syntaxHighlighting),
        ],
      },
    ],
    uploads: [
      { kind: 'logo', label: 'Logo', current: siteView(settings).logo },
      { kind: 'favicon', label: 'Favicon', current: siteView(settings).favicon },
    ],
    keys: keys.map((key) => ({
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      created: shortDate(key.createdAt),
      lastUsed: key.lastUsedAt ? shortDate(key.lastUsedAt) : 'never',
    })),
  };
}
