import type pg from 'pg';
import type { Queryable } from '@app/db';
import type { Actor } from '../common/actor.js';
import { appError } from '../common/error-codes.js';
import { isUuid } from '../common/schemas.js';
import {
  findAuditLog,
  findAuditLogs,
  findAuditSubjects,
  insertAuditLog,
  type AuditEntry,
  type AuditSubjectRow,
} from './audit.repository.js';

export type { AuditEntry };

/**
 * Writes one audit entry; every feature records its changes through here. Call it with the
 * transaction's client, so the entry is committed (or rolled back) together with the change it
 * records.
 */
export function recordAudit(client: Queryable, actor: Actor, entry: AuditEntry): Promise<void> {
  return insertAuditLog(client, actor, entry);
}
import type { AuditQuery } from './audit.schema.js';
import { auditLogJson, type AuditLogJson } from './audit.presenter.js';

export type AuditSubjects = Map<string, AuditSubjectRow>;

/** Reading the audit log (entries are written by the services whose changes they record). */
export function createAuditService(deps: { pool: pg.Pool }) {
  const { pool } = deps;
  return {
    async list(query: AuditQuery) {
      const { rows, total } = await findAuditLogs(pool, query);
      return { auditLogs: rows.map(auditLogJson), total };
    },

    /** The admin console's list: like `list`, with the count stopping at `countLimit`. */
    async page(query: AuditQuery, countLimit: number) {
      const { rows, total } = await findAuditLogs(pool, query, countLimit);
      return { auditLogs: rows.map(auditLogJson), total };
    },

    /** What the resources of these entries are called (automations, webhook endpoints), by resource id. */
    async subjects(entries: AuditLogJson[]): Promise<AuditSubjects> {
      const idsOf = (type: string) => [
        ...new Set(
          entries
            .filter((entry) => entry.resourceType === type && isUuid(entry.resourceId))
            .map((entry) => entry.resourceId),
        ),
      ];
      const rows = await findAuditSubjects(pool, idsOf('system'), idsOf('notification'));
      return new Map(rows.map((row) => [row.id, row]));
    },

    async get(id: string) {
      const row = isUuid(id) ? await findAuditLog(pool, id) : undefined;
      if (!row) throw appError('AUDIT_LOG_NOT_FOUND');
      return auditLogJson(row);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
