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
      '%s has exactly the English keys, with the same placeholders, none empty',
      (language) => {
        const messages = read(folder, language);
        expect([...messages.keys()].sort()).toEqual([...english.keys()].sort());
        for (const [key, message] of english) {
          expect({ key, placeholders: placeholders(messages.get(key)!) }).toEqual({
            key,
            placeholders: placeholders(message),
          });
          expect({ key, empty: messages.get(key)!.trim() === '' }).toEqual({ key, empty: false });
        }
      },
    );
  });
});
