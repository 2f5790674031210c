import { z } from 'zod';
import { decodeListCursor } from './list-cursor.js';

const numeric = (value: unknown) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value);
const blankToUndefined = (value: unknown) => (value === '' ? undefined : value);

export const DEFAULT_LIST_LIMIT = 50;

/** GET /api/pastes: the owner's list, newest first. */
export const listPastesQuerySchema = z.object({
  /** Part of the slug or title, any case. */
  q: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  limit: z.preprocess(numeric, z.number().int().min(1).max(100).optional()),
  cursor: z.preprocess(
    blankToUndefined,
    z
      .string()
      .max(200)
      .optional()
      .transform((value, context) => {
        if (value === undefined) return undefined;
        const decoded = decodeListCursor(value);
        if (!decoded)
          context.addIssue({
            code: 'custom',
            message: 'cursor is not valid: pass the nextCursor of an earlier answer',
          });
        return decoded;
      }),
  ),
});

export const pasteListItemSchema = z.object({
  slug: z.string(),
  title: z.string().nullable(),
  createdAt: z.string().describe('ISO 8601'),
  size: z
    .number()
    .int()
    .describe(
      "Stored size in bytes (UTF-8), what storageUsed adds up; of an encrypted paste, its envelope's (the ciphertext and its parameters)",
    ),
  viewsCount: z.number().int(),
  maxViews: z.number().int().nullable(),
  expiresAt: z.string().nullable().describe('ISO 8601, or null: no time limit'),
  passwordProtected: z.boolean(),
  encrypted: z.boolean().describe('End-to-end encrypted: title null, the content unreadable to the server'),
});

export const pasteListSchema = z.object({
  pastes: z.array(pasteListItemSchema),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null at the end'),
});
export type PasteList = z.infer<typeof pasteListSchema>;
