import { z } from 'zod';
import { canonicalLanguage, DEFAULT_LANGUAGE } from './languages.js';

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
  title: z.preprocess((value) => blankToUndefined(typeof value === 'string' ? value.trim() : value), z.string().max(200).optional()),
  /** Stored by its canonical name: `js` becomes `javascript`. */
  language: z.preprocess(blankToUndefined, z.string().max(100)
    .refine((value) => canonicalLanguage(value) !== undefined, {
      message: 'language must be auto, plaintext, markdown or a language highlight.js knows (such as javascript, python or bash)',
    })
    .transform((value) => canonicalLanguage(value) ?? DEFAULT_LANGUAGE)
    .optional()),
});
export type CreatePasteInput = z.infer<typeof createPasteSchema>;

export const verifyPasteSchema = z.object({
  password: z.string().optional(),
});

/** The delete confirmation form (POST /paste/:slug/delete); a post without a body sends no token. */
export const deleteFormSchema = z.preprocess((value) => value ?? {}, z.object({
  token: z.preprocess(blankToUndefined, z.string().max(200).optional()),
}));

/** A slug that cannot exist is simply not found (404, as '' is), not a validation error. */
export const slugParamsSchema = z.object({
  slug: z.string().min(1).max(64).regex(/^[A-Za-z0-9]+$/).catch(''),
});

export const successSchema = z.object({ success: z.literal(true) });
export const messageSchema = successSchema.extend({ message: z.string() });

export const createdPasteSchema = successSchema.extend({
  slug: z.string(), url: z.string(), deleteToken: z.string(), deleteUrl: z.string(),
  title: z.string().nullable(), language: z.string(),
});

export const clearedPastesSchema = messageSchema.extend({ deletedCount: z.number().int() });

/** The error body of the paste service's JSON answers. */
export const errorSchema = z.object({ error: z.string(), details: z.record(z.string(), z.string()).optional() });
