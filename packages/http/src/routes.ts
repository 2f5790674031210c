import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { parseInput } from './validate.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

/**
 * Who may call a route: the middleware that checks it, and how the API description names it.
 * Guards are made by the apps (owner, admin, customer, API key, JWT); `publicAccess` is the one
 * every service shares.
 */
export interface Guard {
  /** 'public', 'owner', 'admin', 'customer', 'apiKey', 'jwt', ... */
  name: string;
  middleware: readonly RequestHandler[];
  /** OpenAPI security requirements; none for a public route. */
  security?: ReadonlyArray<Record<string, string[]>>;
}

export const publicAccess: Guard = { name: 'public', middleware: [] };

/** One documented answer of a route. */
export interface ResponseDeclaration {
  description: string;
  /** The body's schema (JSON unless `contentType` says otherwise). */
  schema?: z.ZodType;
  contentType?: string;
}

/** What a handler receives: the validated input, typed from the route's schemas. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * A route as data: the same declaration mounts the handler on Express and describes the route
 * in the OpenAPI document, so the two cannot drift apart.
 */
export interface RouteDeclaration<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** Express path (`/api/licenses/:id`). */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  guard: Guard;
  /** Middleware that runs before the guard (a rate limiter, a body parser of its own). */
  before?: readonly RequestHandler[];
  params?: P;
  query?: Q;
  body?: B;
  /** Status of the JSON answer when the handler returns a value (default 200). */
  status?: number;
  responses: Record<number, ResponseDeclaration>;
  /** What the audit log calls this route's action and resource (admin writes). */
  audit?: { action: string; resource: string };
  /**
   * Returns the JSON body to send, or sends the answer itself (a page, a redirect, a file) and
   * returns nothing. Method syntax on purpose: a list of routes of different shapes stays one type.
   */
  handler(input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>>): unknown;
}

export type AnyRoute = RouteDeclaration;

/** Declares a route; the handler's input is typed from the schemas given. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(route: RouteDeclaration<P, Q, B>): AnyRoute {
  return route;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The declaration of the route serving this request (read by audit and error pages). */
      route?: AnyRoute;
    }
  }
}

function parseWith<S extends z.ZodType | undefined>(schema: S, input: unknown): Parsed<S> {
  // Without a schema the input is not read at all: undefined is the declared type.
  return (schema ? parseInput(schema, input) : undefined) as Parsed<S>;
}

export interface MountOptions {
  /** Mount on this router instead of a new one. */
  router?: Router;
  /**
   * Check every JSON answer against the schema its declaration gives for that status, and fail
   * the request when they differ: the declared schemas are the API description, so tests run
   * with this on keep the description true. Off in production (it costs a parse per answer).
   */
  checkResponses?: boolean;
}

/** An answer that does not match its declared schema: a bug in the route, not in the request. */
export class ResponseMismatchError extends Error {
  constructor(route: AnyRoute, status: number, issues: readonly z.core.$ZodIssue[]) {
    const where = issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    super(`${route.method.toUpperCase()} ${route.path} answered ${status} with a body its declared schema refuses: ${where}`);
    this.name = 'ResponseMismatchError';
  }
}

function checkedAnswer(route: AnyRoute, status: number, result: unknown): void {
  const schema = route.responses[status]?.schema;
  if (!schema) return;
  // What the client receives is the JSON text: dates as ISO strings, undefined fields left out.
  const checked = schema.safeParse(JSON.parse(JSON.stringify(result)));
  if (!checked.success) throw new ResponseMismatchError(route, status, checked.error.issues);
}

/** The Express handler chain of one declaration: remember it, limits, guard, validate, run. */
function handlersOf(route: AnyRoute, options: MountOptions): RequestHandler[] {
  const remember: RequestHandler = (_req, res, next) => {
    res.locals.route = route;
    next();
  };
  const run: RequestHandler = async (req, res) => {
    const input = {
      params: parseWith(route.params, req.params),
      query: parseWith(route.query, req.query),
      body: parseWith(route.body, req.body),
      req,
      res,
    };
    const result = await route.handler(input);
    if (result === undefined || res.headersSent) return;
    const status = route.status ?? 200;
    if (options.checkResponses) checkedAnswer(route, status, result);
    res.status(status).json(result);
  };
  return [remember, ...(route.before ?? []), ...route.guard.middleware, run];
}

/** Mounts declarations on a router (a new one unless given), in the order listed. */
export function mountRoutes(routes: readonly AnyRoute[], options: MountOptions = {}): Router {
  const router = options.router ?? Router();
  for (const route of routes) router[route.method](route.path, ...handlersOf(route, options));
  return router;
}
