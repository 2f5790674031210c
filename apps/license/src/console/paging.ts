import { z } from 'zod';

/**
 * The `page` of a console list's query string: a whole number from 1 to 1,000,000. Anything else
 * (missing, `abc`, `0`, too large) shows the first page rather than an error, as a link does.
 */
export const pageNumber = z.coerce
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .optional()
  .catch(undefined)
  .transform((value) => value ?? 1);

/** The rows of page `page` of a list, `size` to a page, as a list query takes them. */
export const pageSlice = (page: number, size: number) => ({ limit: size, skip: (page - 1) * size });

/** How many pages `total` rows take, `size` to a page (at least one). */
export const pageCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size));
