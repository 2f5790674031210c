import type { Request, RequestHandler, Response } from 'express';
import { formatBytes, formatDate, formatNumber, formatRelative } from './format.js';
import {
  DEFAULT_LANGUAGE,
  LANGUAGE_COOKIE,
  LANGUAGE_NAMES,
  SUPPORTED,
  directionOf,
  fromAcceptLanguage,
  fromCookie,
  isSupported,
  type Language,
} from './languages.js';
import { translationsFor, translator } from './messages.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The page's language (`languages()`): the switcher's cookie, else Accept-Language, else en. */
      language: Language;
    }
  }
}

export interface LanguagesOptions {
  /** The app's `locales` folder (`<lang>.json` each); the kit's own strings come with it. */
  appLocalesDir: string;
  /** Where the switcher's links go (default `/language`). */
  switchPath?: string;
  /**
   * Whether an answer to this request is a page that follows the language (gets `Vary:
   * Accept-Language, Cookie`); by default everything outside /api/ and /static/.
   */
  isPage?: (req: Request) => boolean;
}

/** The switcher's entries: each language by its own name, in its own script and direction. */
export const LANGUAGE_CHOICES = SUPPORTED.map((code) => ({ code, name: LANGUAGE_NAMES[code], dir: directionOf(code) }));

/** What a page's words depend on; one vary() call (it parses the header each time). */
const PAGE_VARY = 'Accept-Language, Cookie';

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

const defaultIsPage = (req: Request) => !req.path.startsWith('/api/') && !req.path.startsWith('/static/');

// Accept-Language headers repeat (a handful of browsers' defaults): each is parsed once.
const acceptLanguageCache = new Map<string, Language>();
function languageOfHeader(header: string | undefined): Language {
  if (!header) return DEFAULT_LANGUAGE;
  let language = acceptLanguageCache.get(header);
  if (language === undefined) {
    language = fromAcceptLanguage(header) ?? DEFAULT_LANGUAGE;
    if (acceptLanguageCache.size >= 500) acceptLanguageCache.clear();
    acceptLanguageCache.set(header, language);
  }
  return language;
}

/**
 * A path on this site to return to: starts with one `/` (not `//` or `/\`, which browsers read
 * as another host) and holds no control characters or backslashes. Anything else is refused.
 */
export function isLocalPath(value: string): boolean {
  return (
    /^\/(?![/\\])/.test(value) && ![...value].some((char) => char === '\\' || char <= '\u001f' || char === '\u007f')
  );
}

/** Where a page's switcher returns to: the page itself for a GET, else the home page. */
const returnPathOf = (req: Request) => (req.method === 'GET' || req.method === 'HEAD' ? req.originalUrl : '/');

/** What the views need for pages in one language (the middleware's locals without `returnTo`). */
export function languageLocals(language: Language, appLocalesDir: string | undefined, switchPath = '/language') {
  const format = {
    date: (date: Date | string | number, options?: Intl.DateTimeFormatOptions) => formatDate(language, date, options),
    number: (value: number, options?: Intl.NumberFormatOptions) => formatNumber(language, value, options),
    bytes: (bytes: number) => formatBytes(language, bytes),
    relative: (ms: number) => formatRelative(language, ms),
  };
  const t = translator(language, { appLocalesDir });
  // A group of messages for a page's script, as JSON safe inside <script>: the same text on
  // every page of the language, so written once.
  const scriptJson = new Map<string, string>();
  const toScriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
  const uiMessagesJson = toScriptJson({
    themeToDark: t('ui.themeToDark'),
    themeToLight: t('ui.themeToLight'),
    cancel: t('ui.cancel'),
    confirm: t('ui.confirm'),
    copied: t('ui.copied'),
    copyFailed: t('ui.copyFailed'),
  });
  return {
    lang: language,
    dir: directionOf(language),
    t,
    /** The messages under `key` (an object in the JSON files) as JSON for a `<script type="application/json">`. */
    tJson: (key: string): string => {
      let json = scriptJson.get(key);
      if (json === undefined) {
        json = toScriptJson(t(key, { returnObjects: true }));
        scriptJson.set(key, json);
      }
      return json;
    },
    /** The kit's own script words (ui.js), as JSON for its `<script type="application/json">`. */
    uiMessagesJson,
    /**
     * A message's text before and after one placeholder, for markup around a value the view
     * escapes itself: `const [before, after] = tAround('paste.title', 'slug')` → before<code>slug</code>after.
     */
    tAround: (key: string, name: string, vars?: Record<string, unknown>): [string, string] => {
      const [before = '', after = ''] = t(key, { ...vars, [name]: '\u0000' }).split('\u0000');
      return [before, after];
    },
    formatDate: format.date,
    formatNumber: format.number,
    formatBytes: format.bytes,
    formatRelative: format.relative,
    languageChoices: LANGUAGE_CHOICES,
    languageSwitchPath: switchPath,
  };
}

/**
 * Sets the request's language and what the views need for it: `lang`, `dir` ('rtl'|'ltr'),
 * `t(key, vars)`, `formatDate`, `formatNumber`, `formatBytes`, `formatRelative`, and the switcher's `languageChoices`,
 * `languageSwitchPath` and `returnTo`. Pages get `Vary: Accept-Language, Cookie`. Answers the
 * switcher itself: `GET /language?lang=de&returnTo=/path` sets the `lang` cookie for a year and
 * returns to that local path (the page's #fragment, never sent, stays in the browser: a redirect
 * without one keeps the one the browser had).
 */
export function languages(options: LanguagesOptions): RequestHandler {
  const switchPath = options.switchPath ?? '/language';
  const isPage = options.isPage ?? defaultIsPage;
  // Read every language's messages now, not on the first page.
  translationsFor(options.appLocalesDir);
  // The same functions for every request of a language: made once.
  const locals = new Map(
    SUPPORTED.map((language) => [language, languageLocals(language, options.appLocalesDir, switchPath)]),
  );

  return (req, res, next) => {
    if (req.path === switchPath && (req.method === 'GET' || req.method === 'HEAD')) {
      switchLanguage(req, res);
      return;
    }
    const language = fromCookie(req.headers.cookie) ?? languageOfHeader(req.headers['accept-language']);
    req.language = language;
    Object.assign(res.locals, locals.get(language)!, { returnTo: returnPathOf(req) });
    if (isPage(req)) res.vary(PAGE_VARY);
    next();
  };
}

function switchLanguage(req: Request, res: Response): void {
  const lang = req.query.lang;
  const returnTo = req.query.returnTo ?? '/';
  res.set('Cache-Control', 'no-store');
  if (!isSupported(lang)) {
    res
      .status(400)
      .type('text')
      .send(`lang must be one of ${SUPPORTED.join(', ')}`);
    return;
  }
  if (typeof returnTo !== 'string' || !isLocalPath(returnTo)) {
    res.status(400).type('text').send('returnTo must be a path on this site');
    return;
  }
  res.cookie(LANGUAGE_COOKIE, lang, {
    path: '/',
    maxAge: ONE_YEAR_SECONDS * 1000,
    sameSite: 'lax',
    secure: req.secure,
    httpOnly: true,
  });
  res.redirect(303, returnTo);
}
