import { z } from 'zod';

/** An entitlement's code: 1 to 64 of `A-Z a-z 0-9 _ . -` (validation joins codes with commas). */
export const entitlementCode = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'Must be 1 to 64 letters, digits, "_", "." or "-"');

/** A list of codes a policy or a license grants: each once, at most 100. */
export const entitlementCodes = z
  .array(entitlementCode)
  .max(100)
  .transform((codes) => [...new Set(codes)].sort());

export const createEntitlementSchema = z.object({
  code: entitlementCode,
  name: z.string().trim().min(1).max(200),
});
export const updateEntitlementSchema = z
  .object({
    code: entitlementCode.optional(),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'Nothing to update');

export type CreateEntitlement = z.infer<typeof createEntitlementSchema>;
export type UpdateEntitlement = z.infer<typeof updateEntitlementSchema>;
