import { z } from 'zod';
import { licenseTypes } from '../licenses/licenses.table.js';
import { uuidString } from '../common/schemas.js';

const count = z.coerce.number().int().min(0).max(1_000_000_000);

/**
 * The checkout session's metadata (strings, as Stripe stores them): `licenseKey` names a license
 * to extend; otherwise `productId` (and optionally `customerId`) names the license to create.
 */
export const checkoutMetadataSchema = z
  .object({
    licenseKey: z.string().min(1).optional(),
    productId: uuidString().optional(),
    customerId: uuidString().optional(),
    licenseType: z.enum(licenseTypes).default('fixed'),
    /** Days added to the expiry (from now when expired or unset); creation: days until expiry. */
    durationDays: z.coerce.number().int().min(1).max(36_500).default(365),
    ipLimit: count.default(0),
    hwidLimit: count.default(0),
    /** Consumption licenses: credits granted (creation) or added (extension). */
    credits: count.default(0),
  })
  .refine((value) => value.licenseKey || value.productId, {
    message: 'metadata needs licenseKey or productId',
    path: ['productId'],
  });
export type CheckoutMetadata = z.infer<typeof checkoutMetadataSchema>;
