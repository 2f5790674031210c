import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { ProductRow } from './products.repository.js';

/** The Product resource of the specification; the license counts only where the query counted them. */
export function productJson(row: ProductRow) {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    isActive: row.is_active,
    licensePrefix: row.license_prefix,
    ...(row.license_count !== undefined
      ? { licenseCount: row.license_count, activeLicenseCount: row.active_license_count ?? 0 }
      : {}),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
export type ProductJson = ReturnType<typeof productJson>;

/** The Product resource as the API answers it. */
export const productJsonSchema = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  isActive: z.boolean(),
  licensePrefix: z.string().nullable(),
  licenseCount: z.number().int().optional(),
  activeLicenseCount: z.number().int().optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
