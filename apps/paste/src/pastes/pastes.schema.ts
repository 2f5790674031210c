import { z } from 'zod';
import { MAX_OBJECT_BYTES } from '@app/storage';
import { messageSchema, successSchema } from '../common/responses.js';
import { canonicalLanguage, DEFAULT_LANGUAGE } from '../rendering/languages.js';

const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);

/** Forms and query strings send numbers as text: "3" is taken like 3. */
const wholeNumberText = (value: unknown) => {
  const blank = blankToUndefined(value);
  return typeof blank === 'string' && /^\s*\d+\s*$/.test(blank) ? Number(blank) : blank;
};

/** Forms send checkboxes as text. */
const booleanText = (value: unknown) => {
  const blank = blankToUndefined(value);
  if (blank === 'true' || blank === 'on' || blank === '1') return true;
  if (blank === 'false' || blank === 'off' || blank === '0') return false;
  return blank;
};

/** The longest time limit: one year, in seconds. */
export const MAX_EXPIRY_SECONDS = 31_536_000;

/** ISO 8601 date and time, with `Z` or an offset (`2026-01-31T12:00:00Z`, `2026-01-31T13:00:00+01:00`). */
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Unpadded base64url of `bytes` bytes (16 characters for 12, 22 for 16). */
const base64UrlOf = (bytes: number) => new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((bytes * 4) / 3)}}$`);

/**
 * An end-to-end encrypted paste as the browser or the command line sends it (the format is
 * packages/paste-cli/src/envelope.js): AES-256-GCM's iv (12 bytes) and ciphertext with its tag
 * (at least 16 bytes), the PBKDF2 salt (16 bytes) when a password went into the key, and
 * `keyHash` (SHA-256 of the key check, 32 bytes; decisions.md wave 4), without which the paste
 * keeps the wave-3 rule (any reader counts a view). Other fields are dropped, so nothing
 * readable rides along into the database.
 */
export const envelopeSchema = z.object({
  v: z.literal(1, { error: 'encrypted.v must be 1' }),
  keyHash: z
    .string({ error: 'encrypted.keyHash must be 32 bytes in base64url' })
    .regex(base64UrlOf(32), 'encrypted.keyHash must be 32 bytes in base64url')
    .optional(),
  iv: z
    .string({ error: 'encrypted.iv must be 12 bytes in base64url' })
    .regex(base64UrlOf(12), 'encrypted.iv must be 12 bytes in base64url'),
  salt: z
    .string({ error: 'encrypted.salt must be 16 bytes in base64url' })
    .regex(base64UrlOf(16), 'encrypted.salt must be 16 bytes in base64url')
    .optional(),
  ciphertext: z
    .string({ error: 'encrypted.ciphertext must be base64url' })
    .min(22, 'encrypted.ciphertext must hold at least the 16-byte tag')
    .regex(/^[A-Za-z0-9_-]+$/, 'encrypted.ciphertext must be base64url')
    .refine((value) => value.length % 4 !== 1, 'encrypted.ciphertext must be base64url'),
});
export type EnvelopeInput = z.infer<typeof envelopeSchema>;

/** The most files one paste carries (decisions.md wave 4, "Attachments"). */
export const MAX_ATTACHMENTS = 10;

/** One file declared with a paste; its bytes go to the store by the upload URL answered. */
const attachmentDeclarationSchema = z.object({
  size: z
    .number({ error: 'attachments[].size must be a whole number of bytes' })
    .int('attachments[].size must be a whole number of bytes')
    .min(0, 'attachments[].size must be a whole number of bytes')
    .max(MAX_OBJECT_BYTES, 'attachments[].size must be at most 5 GiB'),
  name: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine(
      (value) => ![...value].some((c) => c.charCodeAt(0) < 32 || c === '\u007f' || c === '/' || c === '\\'),
      'attachments[].name must not hold control characters or slashes',
    )
    .optional(),
  type: z
    .string()
    .max(255)
    .regex(/^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/, 'attachments[].type must be a media type such as text/csv')
    .optional(),
});

/**
 * POST /api/paste. `content` is checked by the service (its own error texts); forms send
 * maxViews as text, so "3" is accepted like 3.
 */
export const createPasteSchema = z
  .object({
    content: z.preprocess((value) => (value === null ? undefined : value), z.string().optional()),
    maxViews: z.preprocess(wholeNumberText, z.number().int().min(1).max(1_000_000_000).optional()),
    password: z.preprocess(blankToUndefined, z.string().max(1000).optional()),
    /** Seconds from now; the service turns it into expiresAt. */
    expiresIn: z.preprocess(
      wholeNumberText,
      z
        .number({ error: 'expiresIn must be a whole number of seconds from 1 to 31536000' })
        .int('expiresIn must be a whole number of seconds from 1 to 31536000')
        .min(1, 'expiresIn must be a whole number of seconds from 1 to 31536000')
        .max(MAX_EXPIRY_SECONDS, 'expiresIn must be at most 31536000 seconds (one year)')
        .optional(),
    ),
    /** Checked against the clock by the service: in the future, at most a year ahead. */
    expiresAt: z.preprocess(
      blankToUndefined,
      z
        .string({ error: 'expiresAt must be a date and time in ISO 8601 format (e.g. 2026-01-31T12:00:00Z)' })
        .regex(isoDateTime, 'expiresAt must be a date and time in ISO 8601 format (e.g. 2026-01-31T12:00:00Z)')
        .refine((value) => !Number.isNaN(Date.parse(value)), 'expiresAt must be a real date and time')
        .optional(),
    ),
    /** The paste page shows a "Show paste" button first: link previews never see the content. */
    revealOnClick: z.preprocess(booleanText, z.boolean().optional()),
    title: z.preprocess(
      (value) => blankToUndefined(typeof value === 'string' ? value.trim() : value),
      z.string().max(200).optional(),
    ),
    /** Stored by its canonical name: `js` becomes `javascript`. */
    /** In place of content, title and language: the server stores this envelope and never reads it. */
    encrypted: z.preprocess((value) => (value === null ? undefined : value), envelopeSchema.optional()),
    /** Files whose bytes are sent afterwards (PUT uploadUrl), then POST /api/paste/:slug/complete. */
    attachments: z.preprocess(
      (value) => (value === null || (Array.isArray(value) && value.length === 0) ? undefined : value),
      z
        .array(attachmentDeclarationSchema, { error: 'attachments must be a list of { size, name?, type? }' })
        .max(MAX_ATTACHMENTS, `A paste carries at most ${MAX_ATTACHMENTS} files`)
        .optional(),
    ),
    language: z.preprocess(
      blankToUndefined,
      z
        .string()
        .max(100)
        .refine((value) => canonicalLanguage(value) !== undefined, {
          message:
            'language must be auto, plaintext, markdown or a language highlight.js knows (such as javascript, python or bash)',
        })
        .transform((value) => canonicalLanguage(value) ?? DEFAULT_LANGUAGE)
        .optional(),
    ),
  })
  .superRefine((value, context) => {
    if (value.expiresIn !== undefined && value.expiresAt !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['expiresAt'],
        message: 'Give either expiresIn or expiresAt, not both',
      });
    }
    if (value.encrypted === undefined) return;
    // Names and types of an encrypted paste's files travel inside its ciphertext too.
    value.attachments?.forEach((file, index) => {
      for (const field of ['name', 'type'] as const) {
        if (file[field] !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['attachments', index, field],
            message: `An encrypted paste carries its files' ${field}s inside encrypted, not beside it`,
          });
        }
      }
    });
    // The title and language of an encrypted paste travel inside it: sent beside it, they would be stored readable.
    for (const field of ['content', 'title', 'language'] as const) {
      if (value[field] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `An encrypted paste carries its ${field} inside encrypted, not beside it`,
        });
      }
    }
    // With a password, the key is derived from the link's key and the password (the salt says so).
    if ((value.password !== undefined) !== (value.encrypted.salt !== undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['encrypted', 'salt'],
        message: 'encrypted.salt comes with a password, and a password with encrypted.salt',
      });
    }
  });
export type CreatePasteInput = z.infer<typeof createPasteSchema>;

export const verifyPasteSchema = z.object({
  password: z.string().optional(),
});

/** The "Show paste" form (POST /paste/:slug/reveal and /raw): a password when the paste has one. */
export const revealFormSchema = z.preprocess(
  (value) => value ?? {},
  z.object({
    password: z.preprocess(blankToUndefined, z.string().max(1000).optional()),
  }),
);

/** The delete confirmation form (POST /paste/:slug/delete); a post without a body sends no token. */
export const deleteFormSchema = z.preprocess(
  (value) => value ?? {},
  z.object({
    token: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  }),
);

/** A slug that cannot exist is simply not found (404, as '' is), not a validation error. */
export const slugParamsSchema = z.object({
  slug: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9]+$/)
    .catch(''),
});

export const createdPasteSchema = successSchema.extend({
  slug: z.string(),
  url: z.string(),
  deleteToken: z.string(),
  deleteUrl: z.string(),
  /** ISO 8601; null without a time limit. */
  expiresAt: z.string().nullable(),
  title: z.string().nullable(),
  language: z.string(),
  /**
   * With attachments: where to PUT each file's bytes (exactly its declared size, within 10
   * minutes); the paste is readable once POST /api/paste/:slug/complete answered 200.
   */
  attachments: z.array(z.object({ id: z.string(), uploadUrl: z.string() })).optional(),
});

/** A file as a counted view lists it: `url` works for 10 minutes. */
export const attachmentDownloadSchema = z.object({
  id: z.string(),
  size: z.number().int(),
  url: z.string(),
  name: z.string().optional(),
  type: z.string().optional(),
});

/** POST /api/paste/:slug/complete: the paste is readable. */
export const completedPasteSchema = successSchema.extend({ slug: z.string(), url: z.string() });

export const clearedPastesSchema = messageSchema.extend({ deletedCount: z.number().int() });
