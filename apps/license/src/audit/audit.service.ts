import type pg from 'pg';
import { appError } from '@app/http';
import { isUuid } from '../common/schemas.js';
import { findAuditLog, findAuditLogs } from './audit.repository.js';
import type { AuditQuery } from './audit.schema.js';
import { auditLogJson } from './audit.presenter.js';

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

    async get(id: string) {
      const row = isUuid(id) ? await findAuditLog(pool, id) : undefined;
      if (!row) throw appError('AUDIT_LOG_NOT_FOUND');
      return auditLogJson(row);
    },
  };
}
