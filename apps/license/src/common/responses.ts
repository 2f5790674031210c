import { z } from 'zod';
import type { ResponseDeclaration } from '@app/http';

/** Every error answer of this service: the specification's `error` text, `details` by field for validation. */
export const errorSchema = z.object({
  success: z.literal(false),
  error: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** `{ success: true }` and nothing else. */
export const successSchema = z.object({ success: z.literal(true) });

/** `{ success: true, <name>: <item> }`. */
export const one = <K extends string, S extends z.ZodType>(name: K, item: S) =>
  z.object({ success: z.literal(true) }).extend({ [name]: item } as Record<K, S>);

/** `{ success: true, <name>: [<item>], count }`, plus `total` where the list is paged. */
export const page = <K extends string, S extends z.ZodType>(name: K, item: S, paged = false) =>
  z
    .object({ success: z.literal(true), count: z.number().int(), ...(paged ? { total: z.number().int() } : {}) })
    .extend({ [name]: z.array(item) } as Record<K, z.ZodArray<S>>);

const failure = (description: string): ResponseDeclaration => ({ description, schema: errorSchema });

/** The answers every admin route may give besides its own. */
export const adminFailures: Record<number, ResponseDeclaration> = {
  401: failure('Not signed in, or the bearer token is invalid'),
  403: failure('Not an admin, a missing CSRF token, or two-factor verification pending'),
};

export const validationFailure: Record<number, ResponseDeclaration> = {
  400: failure('Validation failed (details by field)'),
};

export const notFound = (what: string): Record<number, ResponseDeclaration> => ({ 404: failure(`${what} not found`) });

export const conflict = (description: string): Record<number, ResponseDeclaration> => ({ 409: failure(description) });
