import { z } from 'zod';

/** Query-string booleans: `true`/`false`/`1`/`0`, absent = the default. */
export const queryBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? fallback : value === 'true' || value === '1'));

/** An optional query boolean that stays undefined when absent (a filter that is not applied). */
export const queryFilterBoolean = () =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1'));

/** ISO 8601 date or date-time, parsed to a Date. */
export const isoDate = () =>
  z
    .string()
    .refine((value) => !Number.isNaN(Date.parse(value)), 'Must be an ISO 8601 date')
    .transform((value) => new Date(value));

export const uuidString = () =>
  z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'Invalid id');

export const idParams = z.object({ id: z.string() });

export const paging = (defaultLimit = 50, maxLimit = 1000) => ({
  limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
  skip: z.coerce.number().int().min(0).default(0),
});

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

export const iso = (value: Date | string | null | undefined): string | null =>
  value == null ? null : new Date(value).toISOString();
