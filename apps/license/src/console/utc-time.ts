import { formatDate } from '@app/ui';
import { pageLanguage } from './language.js';

/**
 * How every console and portal page shows a time, in UTC: `2026-11-25 14:03 UTC` in English
 * (and in the exports, written outside a page), the page language's own medium date and short
 * time otherwise (`25.11.2026, 14:03 UTC`).
 */
export const utcTime = (value: Date | string) => {
  const language = pageLanguage();
  if (language === 'en') return `${new Date(value).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `${formatDate(language, value, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`;
};
