import { z } from 'zod';
import { paging } from '../common/schemas.js';

export const createCustomerSchema = z.object({
  name: z.string().trim().min(1).max(200),
  email: z.email().max(320),
  /** Provider user id the customer signs in to the portal with. */
  userId: z.string().trim().min(1).max(200).optional(),
});
export const updateCustomerSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(320).optional(),
    userId: z.string().trim().min(1).max(200).nullable().optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'Nothing to update');
export const listCustomersQuery = z.object({ search: z.string().max(200).optional(), ...paging(50, 1000) });

export type CreateCustomer = z.infer<typeof createCustomerSchema>;
export type UpdateCustomer = z.infer<typeof updateCustomerSchema>;
export type ListCustomers = z.infer<typeof listCustomersQuery>;
