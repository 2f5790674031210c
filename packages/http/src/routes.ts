import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { match, type MatchFunction, type ParamData } from 'path-to-regexp';
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

/** A route's documented answers by status. */
export type ResponseDeclarations = Record<number, ResponseDeclaration>;

/**
 * What a handler may return for a body its schema describes: JSON.stringify sends a Date as its
 * ISO string, so a Date stands where the schema takes a string. A boolean literal (`success:
 * true`) is read as boolean: TypeScript widens `true` in a handler's answer before it knows the
 * route's responses, and the declared schema still checks the value in the tests.
 */
export type Sendable<T> = T extends boolean
  ? boolean
  : T extends string
    ? T | Date
    : T extends readonly (infer Item)[]
      ? readonly Sendable<Item>[]
      : T extends Date
        ? T
        : T extends object
          ? { [K in keyof T]: Sendable<T[K]> }
          : T;

/** The JSON bodies a route's declared 2xx answers describe (never when it declares none). */
type DeclaredAnswer<R> = {
  [K in keyof R]: `${K & number}` extends `2${string}`
    ? R[K] extends { schema: infer S extends z.ZodType }
      ? Sendable<z.input<S>>
      : never
    : never;
}[keyof R];

/**
 * What a handler returns: one of the bodies its 2xx answers declare, or nothing when it answers
 * itself (a page, a redirect, a file). Routes whose responses are only known as the wide
 * `ResponseDeclarations` type (shared page answers) are not checked.
 */
export type HandlerResult<R> = ResponseDeclarations extends R
  ? unknown
  : DeclaredAnswer<R> | void | Promise<DeclaredAnswer<R> | void>;

/**
 * A route as data: the same declaration mounts the handler on Express and describes the route
 * in the OpenAPI document, so the two cannot drift apart.
 */
export interface RouteDeclaration<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends ResponseDeclarations = ResponseDeclarations,
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
  responses: R;
  /** What the audit log calls this route's action and resource (admin writes). */
  audit?: { action: string; resource: string };
  /**
   * Returns the JSON body to send, or sends the answer itself (a page, a redirect, a file) and
   * returns nothing. Method syntax on purpose: a list of routes of different shapes stays one type.
   */
  handler(input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>>): NoInfer<HandlerResult<R>>;
}

export type AnyRoute = RouteDeclaration;

/**
 * Declares a route; the handler's input is typed from the schemas given, and what it returns
 * from the 2xx answers declared (a shape they do not list does not compile).
 */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const R extends ResponseDeclarations = ResponseDeclarations,
>(route: RouteDeclaration<P, Q, B, R>): AnyRoute {
  return route as AnyRoute;
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
    const where = issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    super(
      `${route.method.toUpperCase()} ${route.path} answered ${status} with a body its declared schema refuses: ${where}`,
    );
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
    sendJson(req, res, status, result);
  };
  return [remember, ...(route.before ?? []), ...route.guard.middleware, run];
}

/**
 * What `res.status(status).json(result)` sends. A write (POST, PUT, PATCH, DELETE) answered with
 * a body, in an app that hashes no ETag, where the handler chose no Content-Type, is written
 * directly: Express's json and send would look up the app's JSON settings, parse and rebuild the
 * Content-Type and ask whether the request is fresh, which a write never is. GET and HEAD keep
 * Express's path (a conditional GET can be answered 304).
 */
function sendJson(req: Request, res: Response, status: number, result: unknown): void {
  const direct =
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    status >= 200 &&
    status < 300 &&
    status !== 204 &&
    !req.app.get('etag fn') &&
    res.getHeader('Content-Type') === undefined;
  if (!direct) {
    res.status(status).json(result);
    return;
  }
  const body = JSON.stringify(result);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** A declared route ready to serve: its method, its path matcher and its handler chain. */
interface ServedRoute {
  method: string;
  match: MatchFunction<ParamData>;
  handlers: RequestHandler[];
}

/** As Express's router decodes a path parameter: a malformed escape is the client's 400. */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError) Object.assign(error, { message: `Failed to decode param '${value}'`, status: 400 });
    throw error;
  }
}

/** The declarations a route table serves, for listMountedRoutes. */
export const servedDeclarations = Symbol('servedDeclarations');

/** A route table: Express middleware that also lists the declarations it serves. */
export type RouteTable = RequestHandler & { [servedDeclarations]: readonly AnyRoute[] };

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as Promise<unknown> | undefined)?.then === 'function';

/**
 * Serves declarations as one middleware, in the order listed: the first route whose method and
 * path match runs its chain (HEAD falls back to a GET route, as in Express). Paths match as
 * Express's router matches them (case-insensitive, an optional trailing slash, parameters
 * decoded). `next('route')` moves on to the next matching route; `next(error)` goes to the
 * app's error handlers; an OPTIONS request no route takes is answered with the Allow list, as
 * Express's router answers it.
 *
 * Why not an Express Router: it walks one layer per route and one more per handler, with path
 * bookkeeping and a closure at each; on a paste page that walk (the router's `next`, `handle`
 * and matching) was about 9% of the request thread's time.
 */
export function mountRoutes(routes: readonly AnyRoute[], options: MountOptions = {}): RouteTable {
  const served: ServedRoute[] = routes.map((route) => ({
    method: route.method.toUpperCase(),
    match: match(route.path.length > 1 ? route.path.replace(/\/+$/, '') : route.path, {
      decode: decodeParam,
      end: true,
      trailing: true,
      sensitive: false,
    }),
    handlers: handlersOf(route, options),
  }));
  const table = (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    const method = req.method;
    let allowed: string[] | undefined;
    const dispatch = (from: number): void => {
      for (let index = from; index < served.length; index++) {
        const candidate = served[index]!;
        const sameMethod = candidate.method === method || (method === 'HEAD' && candidate.method === 'GET');
        if (!sameMethod && method !== 'OPTIONS') continue;
        let found;
        try {
          found = candidate.match(path);
        } catch (error) {
          return next(error);
        }
        if (!found) continue;
        if (!sameMethod) {
          (allowed ??= []).push(candidate.method, ...(candidate.method === 'GET' ? ['HEAD'] : []));
          continue;
        }
        req.params = found.params as Request['params'];
        return run(candidate.handlers, index);
      }
      if (allowed) return answerOptions(res, allowed);
      next();
    };
    const run = (handlers: RequestHandler[], index: number) => {
      let step = 0;
      const advance = (signal?: unknown): void => {
        if (signal === 'route') return dispatch(index + 1);
        if (signal === 'router') return next();
        if (signal) return next(signal);
        const handler = handlers[step++];
        if (!handler) return dispatch(index + 1);
        try {
          const result: unknown = handler(req, res, advance);
          if (isPromise(result))
            result.then(undefined, (error: unknown) => next(error ?? new Error('Rejected promise')));
        } catch (error) {
          next(error);
        }
      };
      advance();
    };
    dispatch(0);
  };
  return Object.assign(table, { [servedDeclarations]: routes });
}

/** Express's router's own answer to an OPTIONS request no route handles. */
function answerOptions(res: Response, methods: string[]): void {
  const allow = [...new Set(methods)].sort().join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Length', Buffer.byteLength(allow));
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(allow);
}
