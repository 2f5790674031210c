import { shortDate } from './site-view.js';

/** The web form's time limits (decisions.md: never, 10 minutes, 1 hour, 1 day, 1 week, 1 month). */
export const EXPIRY_PRESETS = [
  { seconds: null, label: 'Never' },
  { seconds: 10 * 60, label: '10 minutes' },
  { seconds: 60 * 60, label: '1 hour' },
  { seconds: 24 * 60 * 60, label: '1 day' },
  { seconds: 7 * 24 * 60 * 60, label: '1 week' },
  // A month is 30 days: a fixed length, whatever the calendar month.
  { seconds: 30 * 24 * 60 * 60, label: '1 month' },
] as const;

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/**
 * "expires in 3 hours": rounded to the nearest minute below an hour, hour below two days, day
 * beyond (a paste made with "1 hour" reads "expires in 1 hour", not "59 minutes").
 */
export function expiresText(expiresAt: Date, now: Date): string {
  const ms = expiresAt.getTime() - now.getTime();
  if (ms <= 0) return 'expired';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'expires in less than a minute';
  if (minutes < 60) return `expires in ${plural(minutes, 'minute')}`;
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return `expires in ${plural(hours, 'hour')}`;
  return `expires in ${plural(Math.round(ms / 86_400_000), 'day')}`;
}

/** The time limit as people read it: "expires in 3 hours", with the exact UTC time beside it. */
export function expiryView(expiresAt: Date | null, now: Date) {
  if (expiresAt === null) return undefined;
  return {
    text: expiresText(expiresAt, now),
    at: expiresAt.toISOString(),
    atText: shortDate(expiresAt),
    /** How far away, for the page's words in its language (partials/expiry). */
    ms: expiresAt.getTime() - now.getTime(),
  };
}
