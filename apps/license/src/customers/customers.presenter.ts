import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { CustomerRow } from './customers.repository.js';

/** The Customer resource of the specification; `licenseCount` where the query counted them. */
export const customerJson = (row: CustomerRow) => ({
  _id: row.id,
  name: row.name,
  email: row.email,
  userId: row.user_id,
  ...(row.license_count !== undefined ? { licenseCount: row.license_count } : {}),
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});
export type CustomerJson = ReturnType<typeof customerJson>;

/** The Customer resource as the API answers it. */
export const customerJsonSchema = z.object({
  _id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  userId: z.string().nullable(),
  licenseCount: z.number().int().optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
