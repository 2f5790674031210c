import { z } from 'zod';
import { usageStatuses } from './usage.table.js';

/** A usage record as the lists show it (the customer portal's latest attempts too). */
export const usageRecordRow = z.object({
  id: z.number(),
  ip: z.string().nullable(),
  hwid: z.string().nullable(),
  status: z.enum(usageStatuses),
  reason: z.string().nullable(),
  created_at: z.date(),
});
export type UsageRecordRow = z.infer<typeof usageRecordRow>;
