import { z } from 'zod';
import { entitlementCodes } from '../entitlements/entitlements.schema.js';
import { expirationStrategies, licenseTypes } from '../common/license-kinds.js';
import { uuidString } from '../common/schemas.js';

// Every template field may be null: the policy then leaves it to the license (or its default).
const limit = z.number().int().min(0).max(1_000_000).nullable();
const policyFields = {
  productId: uuidString(),
  name: z.string().trim().min(1).max(200),
  licenseType: z.enum(licenseTypes).nullable(),
  durationDays: z.number().int().min(1).max(36_500).nullable(),
  ipLimit: limit,
  hwidLimit: limit,
  heartbeatSeconds: z.number().int().min(10).max(86_400).nullable(),
  graceDays: z.number().int().min(0).max(90).nullable(),
  expirationStrategy: z.enum(expirationStrategies).nullable(),
  borrowHours: z.number().int().min(0).max(720).nullable(),
  sharingAddressLimit: z.number().int().min(1).max(1_000_000).nullable(),
  credits: z.number().int().min(0).max(1_000_000_000).nullable(),
  entitlements: entitlementCodes,
};

export const createPolicySchema = z.object({
  ...policyFields,
  licenseType: policyFields.licenseType.default(null),
  durationDays: policyFields.durationDays.default(null),
  ipLimit: policyFields.ipLimit.default(null),
  hwidLimit: policyFields.hwidLimit.default(null),
  heartbeatSeconds: policyFields.heartbeatSeconds.default(null),
  graceDays: policyFields.graceDays.default(null),
  expirationStrategy: policyFields.expirationStrategy.default(null),
  borrowHours: policyFields.borrowHours.default(null),
  sharingAddressLimit: policyFields.sharingAddressLimit.default(null),
  credits: policyFields.credits.default(null),
  entitlements: policyFields.entitlements.default([]),
});

/** The same fields; those left out stay as they are. */
export const updatePolicySchema = z
  .object({
    productId: policyFields.productId.optional(),
    name: policyFields.name.optional(),
    licenseType: policyFields.licenseType.optional(),
    durationDays: policyFields.durationDays.optional(),
    ipLimit: policyFields.ipLimit.optional(),
    hwidLimit: policyFields.hwidLimit.optional(),
    heartbeatSeconds: policyFields.heartbeatSeconds.optional(),
    graceDays: policyFields.graceDays.optional(),
    expirationStrategy: policyFields.expirationStrategy.optional(),
    borrowHours: policyFields.borrowHours.optional(),
    sharingAddressLimit: policyFields.sharingAddressLimit.optional(),
    credits: policyFields.credits.optional(),
    entitlements: policyFields.entitlements.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'Nothing to update');

export const listPoliciesQuery = z.object({
  productId: uuidString().optional(),
  q: z.string().trim().max(200).optional(),
});

export type CreatePolicy = z.infer<typeof createPolicySchema>;
export type UpdatePolicy = z.infer<typeof updatePolicySchema>;
