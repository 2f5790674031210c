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
    `${language}|${JSON.stringify(settings)}`,
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

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** A size in binary steps (1 KB = 1024 bytes), one decimal above bytes, the unit in the language's words. */
export function formatBytes(language: Language, bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return formatNumber(language, value, {
    style: 'unit',
    unit: BYTE_UNITS[unit],
    unitDisplay: 'short',
    minimumFractionDigits: unit === 0 ? 0 : 1,
    maximumFractionDigits: unit === 0 ? 0 : 1,
  });
}
