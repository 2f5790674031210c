import { z } from 'zod';
import { queryBoolean } from '../common/schemas.js';

export const licensePrefix = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$/,
    'Must be 1 to 20 letters, digits, "-" or "_", starting with a letter or digit',
  );

/** A prefix from the product name when none is given: its first letters and digits, upper case. */
export function prefixFromName(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 8)
      .toUpperCase() || 'LIC'
  );
}

const productFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).default(''),
  isActive: z.boolean().default(true),
  licensePrefix: licensePrefix.optional(),
};
export const createProductSchema = z
  .object(productFields)
  .transform((value) => ({ ...value, licensePrefix: value.licensePrefix ?? prefixFromName(value.name) }));
export const updateProductSchema = z
  .object({
    name: productFields.name.optional(),
    description: z.string().max(5000).optional(),
    isActive: z.boolean().optional(),
    licensePrefix: licensePrefix.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'Nothing to update');

export const listProductsQuery = z.object({ includeCounts: queryBoolean(false), activeOnly: queryBoolean(false) });
export const productQuery = z.object({ includeCounts: queryBoolean(false) });

export type CreateProduct = z.infer<typeof createProductSchema>;
export type UpdateProduct = z.infer<typeof updateProductSchema>;
