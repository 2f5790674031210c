import { z } from 'zod';
import { queryBoolean } from '../common/schemas.js';

export const licensePrefix = z.string().regex(/^[A-Za-z0-9]{1,20}$/, 'Must be 1 to 20 letters or digits');

export const createProductSchema = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).default(''),
  isActive: z.boolean().default(true),
  licensePrefix,
});
export const updateProductSchema = createProductSchema.partial().refine((value) => Object.keys(value).length > 0, 'Nothing to update');

export const listProductsQuery = z.object({ includeCounts: queryBoolean(false), activeOnly: queryBoolean(false) });
export const productQuery = z.object({ includeCounts: queryBoolean(false) });

export type CreateProduct = z.infer<typeof createProductSchema>;
export type UpdateProduct = z.infer<typeof updateProductSchema>;
