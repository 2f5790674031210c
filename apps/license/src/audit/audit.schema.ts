import { z } from 'zod';
import { isoDate, queryFilterBoolean } from '../common/schemas.js';
import { auditActions, auditResourceTypes } from './audit.table.js';

export const auditQuerySchema = z.object({
  userId: z.string().min(1).optional(),
  resourceType: z.enum(auditResourceTypes).optional(),
  resourceId: z.string().min(1).optional(),
  action: z.enum(auditActions).optional(),
  startDate: isoDate().optional(),
  endDate: isoDate().optional(),
  success: queryFilterBoolean(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  skip: z.coerce.number().int().min(0).default(0),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;
