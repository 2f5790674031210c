import { isIP } from 'node:net';
import { z } from 'zod';
import { fingerprintSchema } from '../common/fingerprint.js';
import { entitlementCode } from '../entitlements/entitlements.schema.js';

export const validateBodySchema = z.object({
  key: z.string().trim().min(1, 'License key is required').max(200),
  ip: z
    .string()
    .trim()
    .max(100)
    .refine((value) => isIP(value) !== 0, 'Must be an IP address')
    .optional(),
  hwid: fingerprintSchema.optional(),
  /** Echoed in the signed body, so a client can tell a fresh answer from a replayed one. */
  nonce: z.string().min(1).max(256).optional(),
  /** Codes the application needs: any that the license does not grant is a 403 `Entitlement missing`. */
  entitlements: z.array(entitlementCode).max(20).optional(),
});
export type ValidateBody = z.infer<typeof validateBodySchema>;
