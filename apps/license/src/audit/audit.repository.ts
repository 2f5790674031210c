import { parseRow, parseRows, type Queryable, type RowOf, tableRows } from '@app/db';
import { z } from 'zod';
import type { Actor } from '../common/actor.js';
import { type AuditAction, type AuditResourceType, auditLogs } from './audit.table.js';

export interface AuditEntry {
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  success?: boolean;
}

/** Writes one audit log row (other features write theirs through the service's `recordAudit`). */
export async function insertAuditLog(client: Queryable, actor: Actor, entry: AuditEntry): Promise<void> {
  await client.query(
    `INSERT INTO audit_logs (user_id, action, resource_type, resource_id, changes, ip, user_agent, success)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      actor.userId,
      entry.action,
      entry.resourceType,
      entry.resourceId ?? null,
      JSON.stringify({ before: entry.before ?? null, after: entry.after ?? null }),
      actor.ip,
      actor.userAgent,
      entry.success ?? true,
    ],
  );
}

export interface AuditFilter {
  userId?: string;
  resourceType?: string;
  resourceId?: string;
  action?: string;
  startDate?: Date;
  endDate?: Date;
  success?: boolean;
  limit: number;
  skip: number;
}

export type AuditRow = RowOf<typeof auditLogs>;
/** Rows of audit_logs, checked against the table. */
const auditRows = tableRows(auditLogs);

/**
 * A page of entries matching `filter`, newest first, and how many match. With `countLimit`, the
 * count stops there (a count of millions of rows reads them all; a page only needs to know that
 * there are more than it can page through): `total` is then at most `countLimit`.
 */
export async function findAuditLogs(db: Queryable, filter: AuditFilter, countLimit?: number) {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.userId) add('user_id = ?', filter.userId);
  if (filter.resourceType) add('resource_type = ?', filter.resourceType);
  if (filter.resourceId) add('resource_id = ?', filter.resourceId);
  if (filter.action) add('action = ?', filter.action);
  if (filter.startDate) add('created_at >= ?', filter.startDate);
  if (filter.endDate) add('created_at <= ?', filter.endDate);
  // Written out rather than bound, so a generic plan can use the partial index of failed entries.
  if (filter.success !== undefined) where.push(filter.success ? 'success' : 'NOT success');
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const [page, total] = await Promise.all([
    db.query(
      `SELECT * FROM audit_logs ${clause} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, filter.limit, filter.skip],
    ),
    countLimit === undefined
      ? db.query(`SELECT count(*) AS total FROM audit_logs ${clause}`, params)
      : db.query(
          `SELECT count(*) AS total FROM (SELECT 1 FROM audit_logs ${clause} LIMIT $${params.length + 1}) AS capped`,
          [...params, countLimit],
        ),
  ]);
  return { rows: auditRows(page.rows), total: parseRow(z.object({ total: z.number() }), total.rows).total };
}

export async function findAuditLog(db: Queryable, id: string): Promise<AuditRow | undefined> {
  const { rows } = await db.query('SELECT * FROM audit_logs WHERE id = $1', [id]);
  return auditRows(rows)[0];
}

const auditSubjectRow = z.object({
  kind: z.enum(['automation', 'endpoint', 'delivery']),
  id: z.string(),
  label: z.string().nullable(),
});
export type AuditSubjectRow = z.infer<typeof auditSubjectRow>;

/**
 * The names the console shows for the resources of audit entries whose type the spec keeps
 * generic: automations (`system`) by name, webhook endpoints (`notification`) by URL, and
 * which `notification` ids are deliveries. One query for a page of entries; read only.
 */
export async function findAuditSubjects(
  db: Queryable,
  systemIds: string[],
  notificationIds: string[],
): Promise<AuditSubjectRow[]> {
  if (systemIds.length === 0 && notificationIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT 'automation' AS kind, id::text AS id, name AS label FROM automated_actions WHERE id = ANY($1::uuid[])
     UNION ALL SELECT 'endpoint', id::text, url FROM webhook_endpoints WHERE id = ANY($2::uuid[])
     UNION ALL SELECT 'delivery', id::text, NULL FROM webhook_deliveries WHERE id = ANY($2::uuid[])`,
    [systemIds, notificationIds],
  );
  return parseRows(auditSubjectRow, rows);
}
