import { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import { HttpError, validate } from '@app/http';
import { isUuid } from '../common/schemas.js';
import { findAuditLog, findAuditLogs } from './audit.repository.js';
import { auditQuerySchema, type AuditQuery } from './audit.schema.js';

export function auditRoutes(deps: { pool: pg.Pool; requireAdmin: RequestHandler }): Router {
  const router = Router();
  router.get('/api/audit', deps.requireAdmin, validate({ query: auditQuerySchema }), async (req, res) => {
    const query = req.valid.query as AuditQuery;
    const { auditLogs, total } = await findAuditLogs(deps.pool, query);
    res.json({ success: true, auditLogs, count: auditLogs.length, total });
  });
  router.get('/api/audit/:id', deps.requireAdmin, async (req, res) => {
    const id = String(req.params.id);
    const auditLog = isUuid(id) ? await findAuditLog(deps.pool, id) : undefined;
    if (!auditLog) throw HttpError.notFound('Audit log not found');
    res.json({ success: true, auditLog });
  });
  return router;
}
