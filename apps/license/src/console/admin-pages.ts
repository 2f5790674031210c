import type { Express, Request, RequestHandler, Response } from 'express';
import type { ZodError } from 'zod';
import { isHttpError, type Guard, type HttpError } from '@app/http';
import type { CustomerRecord } from '../common/request.js';
import { noAccessData } from './layout.js';

// What the admin console's pages share: the guard as a page answers it, the message shown once
// after a redirect (post, redirect, get), and readable form errors.

export { redirectWithFlash, takeFlash, type FlashMessage } from './flash.js';
export { pageCount, pageNumber, pageSlice } from './paging.js';
export { consoleWrites, sentenceOf, type AuditFailure, type WriteOutcome } from './write-kit.js';

/**
 * Runs a guard and reports how it ended instead of ending the request: `undefined` when it let
 * the request through, else its error. The page reuses the admin guard as is, two-factor gate included.
 */
export async function guardResult(guard: Guard, req: Request, res: Response): Promise<Error | undefined> {
  for (const middleware of guard.middleware) {
    const error = await new Promise<unknown>((resolve) => {
      Promise.resolve(middleware(req, res, (failure?: unknown) => resolve(failure))).catch(resolve);
    });
    if (error) return error instanceof Error ? error : new Error('The guard failed', { cause: error });
  }
  return undefined;
}

/** The two-factor step the gate asks for, when the error is the gate's. */
export function twoFactorStep(error: unknown): 'verify' | 'setup' | undefined {
  if (!isHttpError(error)) return undefined;
  const step = error.extra?.twoFactor;
  return step === 'verify' || step === 'setup' ? step : undefined;
}

type FindCustomer = (userId: string) => Promise<CustomerRecord | undefined>;
const findCustomerKey = 'findCustomerForConsolePages';

/**
 * Lets the console's pages recognise a linked customer: one who opens `/licenses` (or another
 * console address) is sent to their portal instead of being told their account has no access.
 */
export function recogniseCustomersOnConsolePages(app: Express, findCustomer: FindCustomer): void {
  app.locals[findCustomerKey] = findCustomer;
}

/** The portal's page of what a console address shows: a license's own page, else the list at `/`. */
function portalAddressOf(path: string): string {
  const license = /^\/licenses\/([0-9a-f-]{36})\/?$/i.exec(path);
  return license ? `/my-licenses/${license[1]}` : '/';
}

/**
 * The admin guard as the console's pages declare it: the same check as the API's admin guard
 * (two-factor gate included, named `admin` in the API description), answered as a page when it
 * fails (see adminPage). It runs before the route's input is read, so a visitor's form post is
 * never validated, and the handler can take the admin's name with consoleAdminName.
 */
export function adminPageGuard(admin: Guard): Guard {
  const check: RequestHandler = (req, res, next) => {
    adminPage(admin, req, res).then((username) => {
      if (username) next();
    }, next);
  };
  return { name: admin.name, middleware: [check], security: admin.security };
}

/** The signed-in admin's name, on a page behind adminPageGuard (which let only an admin through). */
export function consoleAdminName(req: Request): string {
  if (!req.user) throw new Error('consoleAdminName called on a route without adminPageGuard');
  return req.user.username;
}

/**
 * Where a visitor who asked for a page signs in: the sign-in page, told to come back to the page
 * asked for (a deep link such as /licenses), which /auth/idp keeps through the provider's round trip.
 */
export function signInAddressFor(req: Request): string {
  return req.method === 'GET' && req.originalUrl !== '/' ? `/?returnTo=${encodeURIComponent(req.originalUrl)}` : '/';
}

/**
 * Runs the admin guard (two-factor gate included) for a page. Answers the request itself when
 * it fails (a visitor or an unverified session goes to `/`, a linked customer to their portal,
 * anyone else gets the 403 page) and
 * returns undefined; else the admin's username.
 */
export async function adminPage(admin: Guard, req: Request, res: Response): Promise<string | undefined> {
  res.set('Cache-Control', 'no-store');
  const user = req.user;
  if (!user) {
    res.redirect(303, signInAddressFor(req));
    return undefined;
  }
  const error = await guardResult(admin, req, res);
  if (!error) return user.username;
  if (twoFactorStep(error) || (isHttpError(error) && error.status === 401)) {
    res.redirect(303, '/');
    return undefined;
  }
  if (isHttpError(error) && error.status === 403) {
    const findCustomer = req.app.locals[findCustomerKey] as FindCustomer | undefined;
    if (req.method === 'GET' && findCustomer && (await findCustomer(user.id))) {
      res.redirect(303, portalAddressOf(req.path));
      return undefined;
    }
    res.status(403).render('dashboard/no-access', noAccessData(user.username));
    return undefined;
  }
  throw error;
}

/** One sentence per field the form got wrong, named by its label; `messages` overrides the schema's text per field. */
export function formErrors(
  error: ZodError,
  labels: Record<string, string>,
  messages: Record<string, string> = {},
): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? '');
    if (seen.has(field)) continue;
    seen.add(field);
    const label = labels[field];
    out.push(messages[field] ?? (label ? `${label}: ${issue.message}` : issue.message));
  }
  return out;
}

/** An error as a sentence for a page: its text, and the hint beside it when the answer has one. */
export function errorSentence(error: HttpError): string {
  const hint = error.extra?.hint;
  return `${error.message}.${typeof hint === 'string' ? ` ${hint}` : ''}`;
}
