import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import i18next, { type i18n, type TOptions } from 'i18next';
import { packageRoot } from '../package-root.js';
import { SUPPORTED, DEFAULT_LANGUAGE, type Language } from './languages.js';

/** The kit's own strings (layout, footer, switcher, shared partials), next to its views. */
export const uiLocalesDir = path.join(packageRoot, 'locales');

/** A translation function: a key (dotted path in the JSON files) and its {{placeholders}}. */
export type Translate = (key: string, vars?: Record<string, unknown>) => string;

type Messages = Record<string, unknown>;

function readMessages(folder: string | undefined, language: Language): Messages {
  if (!folder) return {};
  const file = path.join(folder, `${language}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Messages) : {};
}

// One i18next instance per app folder, built on first use from files read once.
const instances = new Map<string, i18n>();

/**
 * The translations of an app: its own messages (namespace `app`) over the kit's (`ui`), every
 * language read at once, synchronously. A key missing in a language falls back to English.
 * Escaping is EJS's (`<%= %>`), so i18next inserts the values as they are.
 */
export function translationsFor(appLocalesDir: string | undefined): i18n {
  const key = appLocalesDir ?? '';
  let instance = instances.get(key);
  if (instance) return instance;
  const resources = Object.fromEntries(
    SUPPORTED.map((language) => [
      language,
      { ui: readMessages(uiLocalesDir, language), app: readMessages(appLocalesDir, language) },
    ]),
  );
  instance = i18next.createInstance();
  void instance.init({
    resources,
    lng: DEFAULT_LANGUAGE,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...SUPPORTED],
    ns: ['app', 'ui'],
    defaultNS: 'app',
    fallbackNS: 'ui',
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
    showSupportNotice: false,
  } as Parameters<i18n['init']>[0]);
  instances.set(key, instance);
  return instance;
}

/** Options i18next reads from a call's values: such calls go to i18next itself. */
const I18NEXT_OPTIONS = ['count', 'context', 'lng', 'ns', 'defaultValue', 'returnObjects', 'ordinal', 'replace'];
const PLACEHOLDER = /\{\{([\w.]+)\}\}/g;

/**
 * The translate function of one language (also for emails and notifications, outside a request).
 * A page asks for dozens of messages, and i18next's lookup (namespaces, fallbacks, plural and
 * nesting checks) cost a paste page 0.1 ms each: each message's text is looked up once, and its
 * {{placeholders}} filled here as i18next fills them (a value that is null or undefined gives
 * nothing, one not given leaves the placeholder). Counts and other i18next options still go to
 * i18next.
 */
export function translator(language: Language, options: { appLocalesDir?: string } = {}): Translate {
  const fixed = translationsFor(options.appLocalesDir).getFixedT(language);
  const texts = new Map<string, string>();
  return (key, vars) => {
    if (vars !== undefined && I18NEXT_OPTIONS.some((option) => option in vars)) return fixed(key, vars as TOptions);
    let text = texts.get(key);
    if (text === undefined) {
      text = fixed(key);
      texts.set(key, text);
    }
    if (vars === undefined || !text.includes('{{')) return text;
    return text.replace(PLACEHOLDER, (whole, name: string) =>
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as i18next writes a value
      Object.hasOwn(vars, name) ? String(vars[name] ?? '') : whole,
    );
  };
}
