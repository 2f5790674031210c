import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { DEFAULT_LANGUAGE, formatNumber, SUPPORTED, translator, type Language, type Translate } from '@app/ui';
import { localesDir } from '../paths.js';

// The language of the page being built. The views translate with `t` (res.locals); the page
// data, flash messages and presenters that build texts in TypeScript read the request's language
// from here instead of taking it as one more parameter through every function: the request runs
// inside `withPageLanguage`, and code outside a request (jobs, notifications) says English
// unless it names a language with `translatorFor`.

const current = new AsyncLocalStorage<Language>();

/**
 * The messages that come in a singular and a plural (`key_one`, `key_other` in en.json). Each
 * language has the plural forms of its own rules (the kit's test: Japanese only `_other`, Arabic
 * six), picked here by `Intl.PluralRules` with the count written as the language writes numbers;
 * a form a language may leave out (French and Spanish `_many`) falls back to its `_other`.
 */
const keysOf = (node: Record<string, unknown>, prefix = ''): string[] =>
  Object.entries(node).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value as Record<string, unknown>, `${prefix}${key}.`),
  );
const messageKeys = (language: Language) =>
  new Set(
    keysOf(JSON.parse(readFileSync(path.join(localesDir, `${language}.json`), 'utf8')) as Record<string, unknown>),
  );
const counted = new Set(
  [...messageKeys(DEFAULT_LANGUAGE)].filter((key) => key.endsWith('_other')).map((key) => key.slice(0, -6)),
);

/** A translate function that picks the plural form of `count` by the language's rules. */
function withCounts(language: Language, translate: Translate): Translate {
  const rules = new Intl.PluralRules(language);
  const keys = messageKeys(language);
  return (key, vars) => {
    const count = vars?.count;
    if (typeof count !== 'number' || !counted.has(key)) return translate(key, vars);
    const form = `${key}_${rules.select(count)}`;
    // The count as text: i18next leaves a text count alone (no plural lookup of its own).
    return translate(keys.has(form) ? form : `${key}_other`, { ...vars, count: formatNumber(language, count) });
  };
}

const translators = new Map<Language, Translate>(
  SUPPORTED.map((language) => [language, withCounts(language, translator(language, { appLocalesDir: localesDir }))]),
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
export const withPageLanguage: RequestHandler = (req, res, next) => {
  const language = req.path.startsWith('/api/') ? DEFAULT_LANGUAGE : (req.language ?? DEFAULT_LANGUAGE);
  // The views' t with the same choice of singular and plural as say's.
  if (req.language) res.locals.t = translatorFor(req.language);
  current.run(language, next);
};
