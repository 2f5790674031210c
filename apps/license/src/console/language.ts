import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import { DEFAULT_LANGUAGE, formatNumber, SUPPORTED, translator, type Language, type Translate } from '@app/ui';
import { localesDir } from '../paths.js';

// The language of the page being built. The views translate with `t` (res.locals); the page
// data, flash messages and presenters that build texts in TypeScript read the request's language
// from here instead of taking it as one more parameter through every function: the request runs
// inside `withPageLanguage`, and code outside a request (jobs, notifications) says English
// unless it names a language with `translatorFor`.

const current = new AsyncLocalStorage<Language>();

const translators = new Map<Language, Translate>(
  SUPPORTED.map((language) => [language, translator(language, { appLocalesDir: localesDir })]),
);

/** The translate function of one language, for emails and notifications sent outside a request. */
export const translatorFor = (language: Language): Translate => translators.get(language)!;

/** The language of the page being built: the request's (set by `languages()`), else English. */
export const pageLanguage = (): Language => current.getStore() ?? DEFAULT_LANGUAGE;

/** A message of apps/license/locales in the page's language. */
export const say: Translate = (key, vars) => translatorFor(pageLanguage())(key, vars);

/** A count in the page's language: `1,234`, `1.234`, `1 234`. */
export const localNumber = (value: number) => formatNumber(pageLanguage(), value);

/**
 * Runs the rest of a page's request in its language (after `languages()` has set
 * `req.language`); the API (/api/) answers in the specification's English.
 */
export const withPageLanguage: RequestHandler = (req, _res, next) => {
  current.run(req.path.startsWith('/api/') ? DEFAULT_LANGUAGE : (req.language ?? DEFAULT_LANGUAGE), next);
};
