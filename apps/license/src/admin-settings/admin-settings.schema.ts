import { z } from 'zod';

// The settings pages' forms as the browser sends them (a checkbox that is not ticked is absent),
// and what the service receives once they are read.

const text = (max: number) => z.string().max(max).optional();

export const panicForm = z.object({ enabled: text(10) });
export const rateLimitForm = z.object({
  enabled: text(10),
  max: text(30),
  windowSeconds: text(30),
  userMax: text(30),
  userWindowSeconds: text(30),
});
export const adminForm = z.object({ userId: text(1_000) });
export const twoFactorCodeForm = z.object({ code: text(100), password: text(1_024) });
export const tokenForm = z.object({ label: text(1_000), lifetime: text(20) });
export const tokenParams = z.object({ id: z.string().max(200) });

const count = z.coerce
  .number({ error: 'enter a whole number' })
  .int('enter a whole number')
  .min(1, 'at least 1')
  .max(1_000_000_000, 'at most 1,000,000,000');
const seconds = z.coerce
  .number({ error: 'enter a whole number of seconds' })
  .int('enter a whole number of seconds')
  .min(1, 'at least 1 second')
  .max(7 * 24 * 3600, 'at most 604,800 seconds (7 days)');

/** The rate-limit form, read: numbers from text (an empty field is a mistake, not zero). */
export const rateLimitInput = z.object({
  enabled: z.boolean(),
  max: count,
  windowSeconds: seconds,
  userMax: count,
  userWindowSeconds: seconds,
});
export type RateLimitInput = z.infer<typeof rateLimitInput>;

/** A provider user id as the identity provider sends it: no spaces or control characters. */
export const providerUserId = z
  .string()
  .trim()
  .min(1, 'enter the id')
  .max(200, 'at most 200 characters')
  .regex(/^[^\s\p{Cc}\p{Cs}]+$/u, 'no spaces or control characters');

/** How long a token issued in the console lives. */
export const tokenLifetimes = {
  '1h': { label: '1 hour', seconds: 3600 },
  '1d': { label: '1 day', seconds: 86_400 },
  '7d': { label: '7 days', seconds: 7 * 86_400 },
  '30d': { label: '30 days', seconds: 30 * 86_400 },
  '90d': { label: '90 days', seconds: 90 * 86_400 },
  '365d': { label: '1 year', seconds: 365 * 86_400 },
} as const;
export type TokenLifetime = keyof typeof tokenLifetimes;
const lifetimeKeys = Object.keys(tokenLifetimes) as [TokenLifetime, ...TokenLifetime[]];

export const tokenInput = z.object({
  label: z
    .string()
    .trim()
    .min(1, 'enter a name, e.g. the program that will use it')
    .max(100, 'at most 100 characters')
    .regex(/^[^\p{Cc}\p{Cs}]+$/u, 'no control characters'),
  lifetime: z.enum(lifetimeKeys, { error: 'choose one of the lifetimes' }),
});
export type TokenInput = z.infer<typeof tokenInput>;
