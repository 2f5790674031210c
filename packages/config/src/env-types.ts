import { z } from 'zod';

/** Small zod helpers for environment variables, which always arrive as strings. */
export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const envInt = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

export const envUrl = () =>
  z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined));

export const envList = () =>
  z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    );

export const optionalString = () =>
  z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value));

/**
 * How a database URL reaches PostgreSQL (packages/db, pooled-client.ts): `transaction` through a
 * pooler in transaction mode; unset (or empty) for the next variable in line, in the end `session`.
 */
export const envPoolMode = () =>
  z
    .enum(['session', 'transaction'])
    .optional()
    .or(z.literal('').transform(() => undefined));
