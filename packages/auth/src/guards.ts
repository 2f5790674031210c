import type { Request, RequestHandler } from 'express';
import { appError } from '@app/http';
import type { SessionUser } from './types.js';

/** 401 `Unauthorized` unless a user is signed in. */
export function requireSignedIn(): RequestHandler {
  return (req, _res, next) => next(req.user ? undefined : appError('UNAUTHORIZED'));
}

/** 401 when nobody is signed in, 403 `Forbidden` for anyone but the owner (and for everyone when no owner is configured). */
export function requireOwner(ownerId: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if (!req.user) return next(appError('UNAUTHORIZED'));
    if (!ownerId || req.user.id !== ownerId) return next(appError('FORBIDDEN'));
    next();
  };
}

/** 401 when nobody is signed in; 403 (`forbiddenMessage`) when `check` refuses the user. */
export function requireUser(
  check: (user: SessionUser, req: Request) => Promise<boolean>,
  forbiddenMessage = 'Forbidden',
): RequestHandler {
  return async (req, _res, next) => {
    if (!req.user) return next(appError('UNAUTHORIZED'));
    try {
      next((await check(req.user, req)) ? undefined : appError('FORBIDDEN', { message: forbiddenMessage }));
    } catch (error) {
      next(error);
    }
  };
}
