/** The languages the pages speak, English first (the fallback). */
export const SUPPORTED = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const;
export type Language = (typeof SUPPORTED)[number];

export const DEFAULT_LANGUAGE: Language = 'en';

/** Languages written right to left. */
const RIGHT_TO_LEFT = new Set<Language>(['ar']);

/** Each language's name in itself: what the switcher shows, so a reader finds their own. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  ja: '日本語',
  ar: 'العربية',
};

/** The cookie the switcher sets. */
export const LANGUAGE_COOKIE = 'lang';

export function isSupported(value: unknown): value is Language {
  return typeof value === 'string' && (SUPPORTED as readonly string[]).includes(value);
}

export function directionOf(language: Language): 'rtl' | 'ltr' {
  return RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr';
}

/** A supported language for a tag: itself, or its primary subtag (de-AT → de); undefined if none. */
export function supportedLanguageOf(tag: string): Language | undefined {
  const lower = tag.trim().toLowerCase();
  if (isSupported(lower)) return lower;
  const primary = lower.split(/[-_]/)[0];
  return isSupported(primary) ? primary : undefined;
}

/**
 * The best supported language of an Accept-Language header: the tags in order of their q
 * values (equal q values keep the header's order), each tried exactly and then by its primary
 * subtag. `*` and q=0 choose nothing.
 */
export function fromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  const ranked: { tag: string; q: number; index: number }[] = [];
  header.split(',').forEach((part, index) => {
    const [tag = '', ...parameters] = part.split(';');
    let q = 1;
    for (const parameter of parameters) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(parameter);
      if (match) q = Number(match[1]);
    }
    if (tag.trim() && tag.trim() !== '*' && q > 0 && Number.isFinite(q)) ranked.push({ tag, q, index });
  });
  ranked.sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const language = supportedLanguageOf(tag);
    if (language) return language;
  }
  return undefined;
}

/** The `lang` cookie's value in a Cookie header, when it names a supported language. */
export function fromCookie(header: string | undefined): Language | undefined {
  if (!header || !header.includes(`${LANGUAGE_COOKIE}=`)) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === LANGUAGE_COOKIE) {
      const value = pair.slice(at + 1).trim();
      if (isSupported(value)) return value;
    }
  }
  return undefined;
}

/** The switcher's choice (the cookie) first, then the browser's Accept-Language, else English. */
export function negotiateLanguage(headers: { cookie?: string; 'accept-language'?: string }): Language {
  return fromCookie(headers.cookie) ?? fromAcceptLanguage(headers['accept-language']) ?? DEFAULT_LANGUAGE;
}
