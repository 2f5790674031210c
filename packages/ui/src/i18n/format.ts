import type { Language } from './languages.js';

// Intl formatters are slow to build and cheap to use: one per language and options, kept.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();

function cached<T>(map: Map<string, T>, key: string, make: () => T): T {
  let found = map.get(key);
  if (!found) map.set(key, (found = make()));
  return found;
}

const DEFAULT_DATE: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' };

/** A date (or ISO text, or epoch ms) in the language's style; by default medium date, short time, UTC. */
export function formatDate(language: Language, date: Date | string | number, options?: Intl.DateTimeFormatOptions) {
  const value = date instanceof Date ? date : new Date(date);
  if (Number.isNaN(value.getTime())) return '';
  const settings = options ?? DEFAULT_DATE;
  return cached(
    dateFormats,
    // Most dates on a page take the default: no JSON of the options for those.
    options ? `${language}|${JSON.stringify(options)}` : language,
    () => new Intl.DateTimeFormat(language, { timeZone: 'UTC', ...settings }),
  ).format(value);
}

export function formatNumber(language: Language, value: number, options?: Intl.NumberFormatOptions): string {
  return cached(
    numberFormats,
    `${language}|${options ? JSON.stringify(options) : ''}`,
    () => new Intl.NumberFormat(language, options),
  ).format(value);
}

// The symbols are the same in every language the pages speak (as in "68,4 KB"); the number is the language's.
const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** A size in binary steps (1 KB = 1024 bytes), one decimal above bytes: "512 B", "68.4 KB", "68,4 KB". */
export function formatBytes(language: Language, bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${formatNumber(language, value, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${BYTE_UNITS[unit]}`;
}

const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

/**
 * A time from now in the language's words ("in 3 hours", "in 3 Stunden", "3 時間後"): minutes
 * below an hour, hours below two days, days beyond; at least one minute.
 */
export function formatRelative(language: Language, ms: number): string {
  const format = cached(relativeFormats, language, () => new Intl.RelativeTimeFormat(language, { numeric: 'always' }));
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return format.format(minutes, 'minute');
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return format.format(hours, 'hour');
  return format.format(Math.round(ms / 86_400_000), 'day');
}
