import { z } from 'zod';

/**
 * Settings an admin changes at run time, stored in the database (namespace `license`) so every
 * instance sees them. `null` rate-limit values fall back to the environment.
 */
export const licenseSettingsSchema = z.object({
  security: z.object({ panicMode: z.boolean().default(false) }).default({ panicMode: false }),
  rateLimit: z
    .object({
      enabled: z.boolean().nullable().default(null),
      windowMs: z
        .number()
        .int()
        .min(1000)
        .max(7 * 24 * 3_600_000)
        .nullable()
        .default(null),
      max: z.number().int().min(1).max(1_000_000_000).nullable().default(null),
    })
    .default({ enabled: null, windowMs: null, max: null }),
  /** What one signed-in admin or customer may do per window (per user id, apart from the per-IP limits). */
  userRateLimit: z
    .object({
      windowMs: z
        .number()
        .int()
        .min(1000)
        .max(7 * 24 * 3_600_000)
        .default(15 * 60_000),
      max: z.number().int().min(1).max(1_000_000_000).default(1000),
    })
    .default({ windowMs: 15 * 60_000, max: 1000 }),
});
export type LicenseSettings = z.infer<typeof licenseSettingsSchema>;
export const licenseSettingsNamespace = 'license';

export const configPatchSchema = z.object({
  security: z.object({ panicMode: z.boolean().optional() }).optional(),
  rateLimit: z
    .object({
      enabled: z.boolean().nullable().optional(),
      windowMs: z
        .number()
        .int()
        .min(1000)
        .max(7 * 24 * 3_600_000)
        .nullable()
        .optional(),
      max: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
    })
    .optional(),
  userRateLimit: z
    .object({
      windowMs: z
        .number()
        .int()
        .min(1000)
        .max(7 * 24 * 3_600_000)
        .optional(),
      max: z.number().int().min(1).max(1_000_000_000).optional(),
    })
    .optional(),
});
export type ConfigPatch = z.infer<typeof configPatchSchema>;

export const panicBodySchema = z.object({ enabled: z.boolean() });

/** The configuration in force (rate limits with the environment's values filled in) and what is stored. */
export const configViewSchema = z.object({
  security: z.object({ panicMode: z.boolean() }),
  rateLimit: z.object({ enabled: z.boolean(), windowMs: z.number().int(), max: z.number().int() }),
  userRateLimit: z.object({ windowMs: z.number().int(), max: z.number().int() }),
  stored: licenseSettingsSchema,
});
