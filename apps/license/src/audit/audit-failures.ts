import type { ErrorRequestHandler, Request } from 'express';
import type pg from 'pg';
import { isHttpError, type Logger } from '@app/http';
import { actorOf } from '../common/actor.js';
import { recordAudit, type AuditEntry } from './audit.repository.js';

type Target = Pick<AuditEntry, 'action' | 'resourceType' | 'resourceId'>;

const resources = { products: 'product', customers: 'customer', licenses: 'license' } as const;
const subActions = { suspend: 'suspend', reactivate: 'activate', revoke: 'revoke' } as const;

/** The audit action and resource of a failed admin write of the core API, if it is one. */
function targetOf(req: Request): Target | undefined {
  const path = req.path;
  if (path === '/api/license/rotate' || path === '/api/license/clear') {
    return { action: 'update', resourceType: 'license', resourceId: null };
  }
  const match = /^\/api\/(products|customers|licenses)(?:\/([^/]+))?(?:\/(suspend|reactivate|revoke))?\/?$/.exec(path);
  if (!match) return undefined;
  const resourceType = resources[match[1] as keyof typeof resources];
  const id = match[2] ?? null;
  if (match[3]) return { action: subActions[match[3] as keyof typeof subActions], resourceType, resourceId: id };
  const action = req.method === 'POST' && !id ? 'create' : req.method === 'PUT' && id ? 'update' : req.method === 'DELETE' && id ? 'delete' : undefined;
  return action && { action, resourceType, resourceId: id };
}

/**
 * Records admin writes that failed (`success: false`, the error in `changes.after`). The
 * successful ones are recorded by their services inside their transaction; a failed one has
 * no transaction left to join, so it is written on its own. Mount before the error handler.
 */
export function auditFailedAdminWrites(pool: pg.Pool, logger: Pick<Logger, 'error'>): ErrorRequestHandler {
  return (error, req, _res, next) => {
    const target = req.admin && req.method !== 'GET' ? targetOf(req) : undefined;
    if (!target) return next(error);
    const status = isHttpError(error) ? error.status : 500;
    const message = isHttpError(error) ? error.message : 'Internal server error';
    recordAudit(pool, actorOf(req), { ...target, success: false, after: { status, error: message } })
      .catch((auditError: unknown) => logger.error({ err: auditError }, 'audit of a failed admin write failed'))
      .finally(() => next(error));
  };
}
