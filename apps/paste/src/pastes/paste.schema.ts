import { z } from 'zod';

const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);

/**
 * POST /api/paste. `content` is checked by the service (its own error texts); forms send
 * maxViews as text, so "3" is accepted like 3.
 */
export const createPasteSchema = z.object({
  content: z.preprocess((value) => (value === null ? undefined : value), z.string().optional()),
  maxViews: z.preprocess(
    (value) => {
      const blank = blankToUndefined(value);
      return typeof blank === 'string' && /^\s*\d+\s*$/.test(blank) ? Number(blank) : blank;
    },
    z.number().int().min(1).max(1_000_000_000).optional(),
  ),
  password: z.preprocess(blankToUndefined, z.string().max(1000).optional()),
});
export type CreatePasteInput = z.infer<typeof createPasteSchema>;

export const verifyPasteSchema = z.object({
  password: z.string().optional(),
});

/** The delete confirmation form (POST /paste/:slug/delete). */
export const deleteFormSchema = z.object({
  token: z.preprocess(blankToUndefined, z.string().max(200).optional()),
});

export const slugParamsSchema = z.object({
  slug: z.string().min(1).max(64).regex(/^[A-Za-z0-9]+$/),
});
