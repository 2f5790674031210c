// What an audit entry is about: its action and resource type (the audit_logs columns), here so
// that the console's pages can say what a failed write was about without importing audit/.

export const auditActions = [
  'create',
  'update',
  'delete',
  'view',
  'login',
  'logout',
  'export',
  'import',
  'revoke',
  'activate',
  'suspend',
  'release',
  'publish',
  'yank',
] as const;
export const auditResourceTypes = [
  'license',
  'customer',
  'product',
  'policy',
  'entitlement',
  'software-release',
  'admin',
  'transaction',
  'notification',
  'system',
] as const;
export type AuditAction = (typeof auditActions)[number];
export type AuditResourceType = (typeof auditResourceTypes)[number];

/** What a write was about: the audit entry it makes, or records when it fails. */
export interface AuditTarget {
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId?: string | null;
}
