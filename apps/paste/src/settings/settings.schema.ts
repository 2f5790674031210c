import { z } from 'zod';

export const DEFAULT_LOGO = '/static/logo.svg';
export const DEFAULT_FAVICON = '/static/favicon.svg';

const hexColor = z
  .string()
  .trim()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Must be a hex colour: #rgb or #rrggbb');
const rateLimit = z.number().int().min(1).max(1_000_000);
const windowMinutes = z.number().int().min(1).max(10_080);
const maxPasteSize = z.number().min(0.01).max(100);
/** The megabyte of the owner's page (maxPasteSize counts in it too): 1024 × 1024 bytes. */
export const MEGABYTE = 1024 * 1024;
/** Total bytes of a paste's attachments: default 100 MiB, at most 5 GiB (decisions.md wave 4). */
const MAX_ATTACHMENT_BYTES = 5 * 1024 ** 3;
const maxAttachmentBytes = z
  .number({ error: 'maxAttachmentBytes must be a whole number of bytes' })
  .int('maxAttachmentBytes must be a whole number of bytes')
  .min(0, 'maxAttachmentBytes must be at least 0')
  .max(MAX_ATTACHMENT_BYTES, `maxAttachmentBytes must be at most ${MAX_ATTACHMENT_BYTES} (5 GB)`);
/** The same limit as the owner's page shows and sends it: in megabytes, any fraction. */
export const MAX_ATTACHMENT_MEGABYTES = MAX_ATTACHMENT_BYTES / MEGABYTE;
const maxAttachmentMegabytes = z
  .number({ error: 'Maximum attachments must be a number of MB' })
  .min(0, 'Maximum attachments cannot be below 0 MB')
  .max(MAX_ATTACHMENT_MEGABYTES, `Maximum attachments must be at most ${MAX_ATTACHMENT_MEGABYTES} MB (5 GB)`);
const slugLength = z.number().int().min(4).max(64);
const siteName = z.string().trim().min(1).max(100);
const siteDescription = z.string().trim().max(500);

export const autoDeleteChoices = ['never', '7', '30', '90', '180', '365'] as const;
export const slugCharacterSets = ['alphanumeric', 'lowercase', 'numbers', 'letters'] as const;

/** Every setting of the site with the specification's defaults (`parse({})` gives them all). */
export const pasteSettingsSchema = z.object({
  siteName: siteName.default('Paste'),
  siteDescription: siteDescription.default('Share text and code with a link.'),
  logo: z.string().default(DEFAULT_LOGO),
  favIcon: z.string().default(DEFAULT_FAVICON),
  primaryColor: hexColor.default('#2563eb'),
  secondaryColor: hexColor.default('#0f172a'),
  webRateLimit: rateLimit.default(100),
  webRateLimitWindow: windowMinutes.default(60),
  maxPasteSize: maxPasteSize.default(1),
  maxAttachmentBytes: maxAttachmentBytes.default(100 * 1024 ** 2),
  apiAccess: z.boolean().default(true),
  apiRateLimit: rateLimit.default(100),
  apiRateLimitWindow: windowMinutes.default(60),
  apiKeyProtection: z.boolean().default(false),
  autoDeleteInactive: z.enum(autoDeleteChoices).default('never'),
  syntaxHighlighting: z.boolean().default(true),
  slugLength: slugLength.default(8),
  slugCharacterSet: z.enum(slugCharacterSets).default('alphanumeric'),
});
export type PasteSettings = z.infer<typeof pasteSettingsSchema>;

/** Form posts send numbers and booleans as text: accept "5" and "true" as well as 5 and true. */
const fromText = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => {
    if (typeof value !== 'string' || value.trim() === '') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    return Number.isNaN(Number(value)) ? value : Number(value);
  }, schema);

// The three owner forms. Unknown fields are ignored; every field is optional.
export const generalSettingsSchema = z.object({
  siteName: siteName.optional(),
  siteDescription: siteDescription.optional(),
  primaryColor: hexColor.optional(),
  secondaryColor: hexColor.optional(),
});

/**
 * The attachment limit comes in bytes (`maxAttachmentBytes`, the API's unit) or, from the owner's
 * page, in megabytes (`maxAttachmentMegabytes`, like maxPasteSize beside it): the server turns
 * megabytes into bytes, so the page sends what the owner typed and the range is checked here.
 */
export const securitySettingsSchema = z
  .object({
    webRateLimit: fromText(rateLimit).optional(),
    webRateLimitWindow: fromText(windowMinutes).optional(),
    maxPasteSize: fromText(maxPasteSize).optional(),
    maxAttachmentBytes: fromText(maxAttachmentBytes).optional(),
    maxAttachmentMegabytes: fromText(maxAttachmentMegabytes).optional(),
    apiAccess: fromText(z.boolean()).optional(),
    apiRateLimit: fromText(rateLimit).optional(),
    apiRateLimitWindow: fromText(windowMinutes).optional(),
    apiKeyProtection: fromText(z.boolean()).optional(),
  })
  .refine((body) => body.maxAttachmentBytes === undefined || body.maxAttachmentMegabytes === undefined, {
    path: ['maxAttachmentMegabytes'],
    message: 'Give maxAttachmentBytes or maxAttachmentMegabytes, not both',
  })
  .transform(({ maxAttachmentMegabytes: megabytes, ...patch }) =>
    megabytes === undefined ? patch : { ...patch, maxAttachmentBytes: Math.round(megabytes * MEGABYTE) },
  );

export const advancedSettingsSchema = z.object({
  autoDeleteInactive: z
    .preprocess((value) => (typeof value === 'number' ? String(value) : value), z.enum(autoDeleteChoices))
    .optional(),
  syntaxHighlighting: fromText(z.boolean()).optional(),
  slugLength: fromText(slugLength).optional(),
  slugCharacterSet: z.enum(slugCharacterSets).optional(),
});
