import { z } from 'zod';
import { iso } from '../common/schemas.js';
import type { AuditRow } from './audit.repository.js';

/** An audit log entry as the API answers it (the specification's AuditLog). */
export const auditLogJsonSchema = z.object({
  _id: z.string(),
  userId: z.string(),
  action: z.string(),
  resourceType: z.string(),
  resourceId: z.string(),
  changes: z.object({ before: z.record(z.string(), z.unknown()), after: z.record(z.string(), z.unknown()) }),
  ip: z.string(),
  userAgent: z.string(),
  success: z.boolean(),
  createdAt: z.iso.datetime(),
});
export type AuditLogJson = z.infer<typeof auditLogJsonSchema>;

export function auditLogJson(row: AuditRow): AuditLogJson {
  return {
    _id: row.id,
    userId: row.user_id,
    action: row.action,
    resourceType: row.resource_type,
    // The specification types these as strings and objects: absent values read as '' and {}.
    resourceId: row.resource_id ?? '',
    changes: { before: row.changes?.before ?? {}, after: row.changes?.after ?? {} },
    ip: row.ip ?? '',
    userAgent: row.user_agent ?? '',
    success: row.success,
    createdAt: iso(row.created_at)!,
  };
}
