import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { EntitlementRow } from './entitlements.repository.js';

/** The Entitlement resource. */
export const entitlementJson = (row: EntitlementRow) => ({
  _id: row.id,
  code: row.code,
  name: row.name,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});
export type EntitlementJson = ReturnType<typeof entitlementJson>;

export const entitlementJsonSchema = z.object({
  _id: z.string(),
  code: z.string(),
  name: z.string(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
