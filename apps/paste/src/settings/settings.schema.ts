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
/** Total bytes of a paste's attachments: default 100 MiB, at most 5 GiB (decisions.md wave 4). */
const maxAttachmentBytes = z
  .number()
  .int()
  .min(0)
  .max(5 * 1024 ** 3);
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

export const securitySettingsSchema = z.object({
  webRateLimit: fromText(rateLimit).optional(),
  webRateLimitWindow: fromText(windowMinutes).optional(),
  maxPasteSize: fromText(maxPasteSize).optional(),
  maxAttachmentBytes: fromText(maxAttachmentBytes).optional(),
  apiAccess: fromText(z.boolean()).optional(),
  apiRateLimit: fromText(rateLimit).optional(),
  apiRateLimitWindow: fromText(windowMinutes).optional(),
  apiKeyProtection: fromText(z.boolean()).optional(),
});

export const advancedSettingsSchema = z.object({
  autoDeleteInactive: z
    .preprocess((value) => (typeof value === 'number' ? String(value) : value), z.enum(autoDeleteChoices))
    .optional(),
  syntaxHighlighting: fromText(z.boolean()).optional(),
  slugLength: fromText(slugLength).optional(),
  slugCharacterSet: z.enum(slugCharacterSets).optional(),
});
