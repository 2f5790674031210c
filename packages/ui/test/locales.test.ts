import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUPPORTED, uiLocalesDir } from '../src/index.js';

// Every message file set in the workspace: the kit's and each app's that has a locales folder.
const root = path.resolve(import.meta.dirname, '../../..');
const folders = [
  uiLocalesDir,
  ...readdirSync(path.join(root, 'apps'))
    .map((app) => path.join(root, 'apps', app, 'locales'))
    .filter((folder) => existsSync(folder)),
];

/** key (dotted) → the message, for every string leaf. */
function flatten(value: unknown, prefix = '', into = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'string') into.set(prefix, value);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  else throw new Error(`${prefix}: neither text nor an object`);
  return into;
}

const placeholders = (message: string) => [...message.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]).sort();

const PLURAL = /_(zero|one|two|few|many|other)$/;

/**
 * A plural message (i18next: key_one, key_other, ...) has the forms its language has: every
 * category of Intl.PluralRules, except `many` in French and Spanish (only for millions, where
 * i18next falls back to `other`). English `views_one`/`views_other` is the key `views` in Japanese
 * as `views_other` alone and in Arabic as its six forms.
 */
function pluralForms(language: string): string[] {
  const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories as string[];
  return categories.filter((category) => !(category === 'many' && ['fr', 'es'].includes(language))).sort();
}

/** The keys with plural suffixes folded into one (`views_one`, `views_other` → `views`). */
const baseKeys = (messages: Map<string, string>) =>
  [...new Set([...messages.keys()].map((key) => key.replace(PLURAL, '')))].sort();

const read = (folder: string, language: string) =>
  flatten(JSON.parse(readFileSync(path.join(folder, `${language}.json`), 'utf8')));

describe('message files', () => {
  it('include the paste app and the kit', () => {
    expect(folders.map((folder) => path.relative(root, folder))).toEqual(
      expect.arrayContaining(['packages/ui/locales', 'apps/paste/locales']),
    );
  });

  describe.each(folders.map((folder) => [path.relative(root, folder), folder]))('%s', (_name, folder) => {
    const english = read(folder, 'en');

    it.each(SUPPORTED.filter((language) => language !== 'en'))(
      '%s has exactly the English keys (plurals in its own forms), the same placeholders, none empty',
      (language) => {
        const messages = read(folder, language);
        expect(baseKeys(messages)).toEqual(baseKeys(english));
        const pluralBases = new Set(
          [...english.keys()].filter((key) => PLURAL.test(key)).map((key) => key.replace(PLURAL, '')),
        );
        for (const base of pluralBases) {
          const forms = [...messages.keys()].filter((key) => key.replace(PLURAL, '') === base && PLURAL.test(key));
          const categories = forms.map((key) => PLURAL.exec(key)![1]!).sort();
          const allowed = new Intl.PluralRules(language).resolvedOptions().pluralCategories as string[];
          expect({ base, missing: pluralForms(language).filter((form) => !categories.includes(form)) }).toEqual({
            base,
            missing: [],
          });
          expect({ base, foreign: categories.filter((form) => !allowed.includes(form)) }).toEqual({
            base,
            foreign: [],
          });
        }
        for (const [key, message] of messages) {
          const source = english.get(key) ?? english.get(key.replace(PLURAL, '_other'))!;
          expect({ key, placeholders: placeholders(message) }).toEqual({ key, placeholders: placeholders(source) });
          expect({ key, empty: message.trim() === '' }).toEqual({ key, empty: false });
        }
      },
    );
  });
});
