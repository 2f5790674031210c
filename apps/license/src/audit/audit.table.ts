import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

import type { AuditAction, AuditResourceType } from '../common/audit-target.js';

export { auditActions, auditResourceTypes, type AuditAction, type AuditResourceType } from '../common/audit-target.js';

export const auditLogs = pgTable(
  'audit_logs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The admin's provider user id (or `system` for automated work). */
    userId: text('user_id').notNull(),
    action: text('action').$type<AuditAction>().notNull(),
    resourceType: text('resource_type').$type<AuditResourceType>().notNull(),
    resourceId: text('resource_id'),
    changes: jsonb('changes')
      .$type<{ before: Record<string, unknown> | null; after: Record<string, unknown> | null }>()
      .notNull()
      .default({ before: null, after: null }),
    ip: text('ip'),
    userAgent: text('user_agent'),
    success: boolean('success').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    index('audit_logs_created_idx').on(table.createdAt),
    index('audit_logs_resource_idx').on(table.resourceType, table.resourceId),
    index('audit_logs_user_idx').on(table.userId, table.createdAt),
    // The audit log page's filters, newest first (0006_audit_filter_indexes.sql).
    index('audit_logs_action_created_idx').on(table.action, table.createdAt, table.id),
    index('audit_logs_type_created_idx').on(table.resourceType, table.createdAt, table.id),
    index('audit_logs_failed_created_idx')
      .on(table.createdAt, table.id)
      .where(sql`NOT ${table.success}`),
  ],
);
