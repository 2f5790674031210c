import type { ErrorRequestHandler, Request, Response } from 'express';
import type pg from 'pg';
import { describeError, type Logger } from '@app/http';
import { actorOf } from '../common/actor.js';
import type { AuditTarget } from '../common/audit-target.js';
import { recordAudit } from './audit.service.js';
import { auditActions, auditResourceTypes } from './audit.table.js';

type Target = AuditTarget;

/**
 * The `:id` the request named, read from the route's declared path: error middleware runs
 * outside the route, where Express no longer holds its params.
 */
function idOf(routePath: string, requestPath: string): string | null {
  const names: string[] = [];
  const pattern = routePath
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
  const match = new RegExp(`^${pattern}/?$`).exec(requestPath);
  const index = names.indexOf('id');
  const id = index >= 0 ? match?.[index + 1] : undefined;
  return id ?? null;
}

/** The audit action and resource the serving route declares, for a failed admin write. */
function targetOf(req: Request, res: Response): Target | undefined {
  const route = res.locals.route;
  if (!route?.audit || !req.admin || req.method === 'GET') return undefined;
  const declared = route.audit;
  const action = auditActions.find((known) => known === declared.action);
  const resourceType = auditResourceTypes.find((known) => known === declared.resource);
  return action && resourceType && { action, resourceType, resourceId: idOf(route.path, req.path) };
}

/**
 * Records one admin write that failed and was answered by the route itself (a page that shows
 * the form again), naming what it was about, as the middleware below records those that end in
 * an error answer.
 */
export async function recordFailedWrite(pool: pg.Pool, req: Request, target: Target, error: unknown): Promise<void> {
  const { status, message } = describeError(error);
  await recordAudit(pool, actorOf(req), { ...target, success: false, after: { status, error: message } });
}

/**
 * Records admin writes that failed (`success: false`, the error in `changes.after`). The
 * successful ones are recorded by their services inside their transaction; a failed one has
 * no transaction left to join, so it is written on its own. Mount before the error handler.
 */
export function auditFailedAdminWrites(pool: pg.Pool, logger: Pick<Logger, 'error'>): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!targetOf(req, res)) return next(error);
    recordFailedAdminWrite(pool, req, res, error)
      .catch((auditError: unknown) => logger.error({ err: auditError }, 'audit of a failed admin write failed'))
      .finally(() => next(error));
  };
}

/**
 * Records one failed admin write of the serving route as the middleware above does, for a
 * handler that answers the failure itself (a page's form post redirects back with a message).
 */
export async function recordFailedAdminWrite(
  pool: pg.Pool,
  req: Request,
  res: Response,
  error: unknown,
): Promise<void> {
  const target = targetOf(req, res);
  if (!target) return;
  const { status, message } = describeError(error);
  await recordAudit(pool, actorOf(req), { ...target, success: false, after: { status, error: message } });
}
