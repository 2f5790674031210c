import { z } from 'zod';
import { uuidString } from '../common/schemas.js';

/** The widest window one answer covers: a year and a day (a leap year's dates, both ends included). */
export const maxAnalyticsDays = 366;

/** A UTC calendar day, `YYYY-MM-DD`, that exists. */
const day = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date as YYYY-MM-DD')
    .refine((value) => {
      const at = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value);
    }, 'Must be a real date');

const blankable = <T extends z.ZodType>(schema: T) =>
  z.union([z.literal('').transform(() => undefined), schema]).optional();

const windowQuery = {
  from: blankable(day()),
  to: blankable(day()),
};

const checkWindow = (query: { from?: string; to?: string }, ctx: z.RefinementCtx) => {
  if (query.from && query.to && query.from > query.to)
    ctx.addIssue({ code: 'custom', message: 'to must not be before from', path: ['to'] });
};

/** `GET /api/analytics/validations`: days as YYYY-MM-DD (UTC, both included), default the last 30. */
export const validationAnalyticsQuery = z
  .object({ productId: blankable(uuidString()), ...windowQuery })
  .superRefine(checkWindow);
export type ValidationAnalyticsQuery = z.infer<typeof validationAnalyticsQuery>;

export const licenseAnalyticsQuery = z.object(windowQuery).superRefine(checkWindow);
export type LicenseAnalyticsQuery = z.infer<typeof licenseAnalyticsQuery>;

/** One day of the answer. */
export const analyticsDayJson = z.object({
  date: z.string(),
  ok: z.number().int(),
  refused: z.record(z.string(), z.number().int()),
  machines: z.number().int(),
  addresses: z.number().int(),
});

export const analyticsAnswer = z.object({
  success: z.literal(true),
  from: z.string(),
  to: z.string(),
  days: z.array(analyticsDayJson),
});
