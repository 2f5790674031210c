import { z } from 'zod';
import { iso } from '../common/schemas.js';
import { expirationStrategies, licenseTypes } from '../common/license-kinds.js';
import type { PolicyRow } from './policies.repository.js';

/** The Policy resource: null fields leave the license's own value (or its default). */
export const policyJson = (row: PolicyRow) => ({
  _id: row.id,
  productId: row.product_id,
  product: { _id: row.product_id, name: row.product_name },
  name: row.name,
  licenseType: row.license_type,
  durationDays: row.duration_days,
  ipLimit: row.ip_limit,
  hwidLimit: row.hwid_limit,
  heartbeatSeconds: row.heartbeat_seconds,
  graceDays: row.grace_days,
  expirationStrategy: row.expiration_strategy,
  borrowHours: row.borrow_hours,
  sharingAddressLimit: row.sharing_address_limit,
  credits: row.credits,
  entitlements: row.entitlement_codes,
  licenseCount: row.license_count,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});
export type PolicyJson = ReturnType<typeof policyJson>;

const count = z.number().int().nullable();
export const policyJsonSchema = z.object({
  _id: z.string(),
  productId: z.string(),
  product: z.object({ _id: z.string(), name: z.string() }),
  name: z.string(),
  licenseType: z.enum(licenseTypes).nullable(),
  durationDays: count,
  ipLimit: count,
  hwidLimit: count,
  heartbeatSeconds: count,
  graceDays: count,
  expirationStrategy: z.enum(expirationStrategies).nullable(),
  borrowHours: count,
  sharingAddressLimit: count,
  credits: count,
  entitlements: z.array(z.string()),
  licenseCount: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
