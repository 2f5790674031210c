import type pg from 'pg';
import { appError } from '@app/http';
import { isUuid } from '../common/schemas.js';
import { findAuditLog, findAuditLogs } from './audit.repository.js';
import type { AuditQuery } from './audit.schema.js';

/** Reading the audit log (entries are written by the services whose changes they record). */
export function auditService(deps: { pool: pg.Pool }) {
  const { pool } = deps;
  return {
    list: (query: AuditQuery) => findAuditLogs(pool, query),

    async get(id: string) {
      const auditLog = isUuid(id) ? await findAuditLog(pool, id) : undefined;
      if (!auditLog) throw appError('AUDIT_LOG_NOT_FOUND');
      return auditLog;
    },
  };
}
