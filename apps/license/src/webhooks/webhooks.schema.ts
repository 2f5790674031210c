import { z } from 'zod';
import { paging } from '../common/schemas.js';

export const deliveriesQuerySchema = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  ...paging(50, 500),
});
export type DeliveriesQuery = z.infer<typeof deliveriesQuerySchema>;
