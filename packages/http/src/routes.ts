import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { match, type MatchFunction, type ParamData } from 'path-to-regexp';
import type { z } from 'zod';
import { isHttpError, type HttpError } from './http-error.js';
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

/**
 * How a route answers, which decides how its returned value is sent and how its errors are
 * rendered (one renderer per kind):
 * - `json` (the default): the handler returns the body; errors as the app's JSON error body;
 * - `signed`: the handler returns the body; the route's `signer` adds what every signed answer
 *   carries, signs the bytes and sends them; errors are signed too (`signer.errors`);
 * - `text`: plain text the handler sends; errors as plain text;
 * - `page`: an HTML page the handler renders; errors as the app's error page;
 * - `redirect`: a form post answered with a redirect (post, redirect, get); errors as pages.
 * Pages and redirects are for browsers: the API description marks them internal.
 */
export type AnswerKind = 'json' | 'signed' | 'text' | 'page' | 'redirect';

/**
 * The fields a signer adds to every signed body (the request as read, the time, the nonce): a
 * handler's answer leaves them out, the declared schema lists them.
 */
export type SignedFields = 'nonce' | 'request' | 'issuedAt';

/**
 * Signs the answers of `signed` routes. The pipeline asks it to complete a handler's body, holds
 * the result to the declared schema (in tests), and has it send exactly the bytes it signs.
 */
export interface AnswerSigner {
  /** The body as sent: the handler's fields plus the signed fields, read from the request. */
  complete(req: Request, body: object): object;
  /** Serialises, signs and sends the body with its signature headers. */
  send(res: Response, status: number, body: object): void;
  /** The signed routes' error renderer (failures are signed as well); mounted below their path. */
  errors: ErrorRequestHandler[];
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
 * How a refusal (an HttpError below 500) that a handler throws is answered as something other
 * than the app's error answer: `when` picks the refusals it takes (all when absent), `render`
 * answers them. A route declares one to show its form again with the refusal's message; the
 * app gives one per answer kind (plain text for `text`, the not-found page for `page`).
 */
export interface RefusalAnswer<Input = RouteInput<unknown, unknown, unknown>> {
  when?(error: HttpError, input: Input): boolean;
  render(error: HttpError, input: Input): void | Promise<void>;
}

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

/** A declared body as a handler returns it: a signed route's without the fields its signer adds. */
type Returned<T, Kind extends AnswerKind> = Kind extends 'signed' ? Sendable<Omit<T, SignedFields>> : Sendable<T>;

/** The JSON bodies a route's declared 2xx answers describe (never when it declares none). */
type DeclaredAnswer<R, Kind extends AnswerKind> = {
  [K in keyof R]: `${K & number}` extends `2${string}`
    ? R[K] extends { schema: infer S extends z.ZodType }
      ? Returned<z.input<S>, Kind>
      : never
    : never;
}[keyof R];

/** A body with the status to send it with, when a route answers with more than one 2xx. */
export class StatusAnswer<T> {
  constructor(
    readonly status: number,
    readonly body: T,
  ) {}
}

/** Answers `body` with `status` (201 for a new machine, 200 for one already known). */
export const withStatus = <T>(status: number, body: T): StatusAnswer<T> => new StatusAnswer(status, body);

type Answered<R, Kind extends AnswerKind> = DeclaredAnswer<R, Kind> | StatusAnswer<DeclaredAnswer<R, Kind>> | void;

/**
 * What a handler returns: one of the bodies its 2xx answers declare, or nothing when it answers
 * itself (a page, a redirect, a file). Routes whose responses are only known as the wide
 * `ResponseDeclarations` type (shared page answers) are not checked.
 */
export type HandlerResult<R, Kind extends AnswerKind = 'json'> = ResponseDeclarations extends R
  ? unknown
  : Answered<R, Kind> | Promise<Answered<R, Kind>>;

/**
 * A route as data: the same declaration mounts the handler on Express and describes the route
 * in the OpenAPI document, so the two cannot drift apart.
 */
export interface RouteDeclaration<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends ResponseDeclarations = ResponseDeclarations,
  Kind extends AnswerKind = AnswerKind,
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
  /** How the route answers (default `json`); see AnswerKind. */
  answer?: Kind;
  /** Signs the answers of a `signed` route (required for one, refused for any other). */
  signer?: AnswerSigner;
  /** Status of the JSON answer when the handler returns a value (default 200). */
  status?: number;
  responses: R;
  /** What the audit log calls this route's action and resource (admin writes). */
  audit?: { action: string; resource: string };
  /**
   * The route's own answer to the refusals its handler throws (the form again, saying what is
   * wrong), ahead of its answer kind's. The handler itself never catches to render.
   */
  refused?: RefusalAnswer<RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>>>;
  /**
   * Returns the JSON body to send, or sends the answer itself (a page, a redirect, a file) and
   * returns nothing. Method syntax on purpose: a list of routes of different shapes stays one type.
   */
  handler(input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>>): NoInfer<HandlerResult<R, Kind>>;
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
  const Kind extends AnswerKind = 'json',
>(route: RouteDeclaration<P, Q, B, R, Kind>): AnyRoute {
  if ((route.answer === 'signed') !== (route.signer !== undefined))
    throw new Error(`${route.method.toUpperCase()} ${route.path}: a signer goes with answer 'signed', and only there`);
  return route;
}

/** How a declared route answers (`json` when it does not say). */
export const answerKindOf = (route: AnyRoute): AnswerKind => route.answer ?? 'json';

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
   * The app's answer, per answer kind, to a refusal a handler throws (a 404 as the console's
   * not-found page, a raw view's refusal as plain text); without one the refusal goes on to the
   * app's error handlers, as every other error does.
   */
  refusals?: Partial<Record<AnswerKind, RefusalAnswer>>;
  /** Called before a refusal is answered here (the app's audit of failed admin writes). */
  onRefusal?: (error: HttpError, req: Request, res: Response) => Promise<void>;
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
    let result: unknown;
    try {
      result = await route.handler(input);
    } catch (error) {
      const answer = refusalAnswerOf(route, options, error, input);
      if (!answer) throw error;
      await options.onRefusal?.(error as HttpError, req, res);
      await answer.render(error as HttpError, input);
      return;
    }
    if (result === undefined || res.headersSent) return;
    let status = route.status ?? 200;
    let body: unknown = result;
    if (result instanceof StatusAnswer) ({ status, body } = result as StatusAnswer<unknown>);
    const signer = route.signer;
    if (signer) {
      const signed = signer.complete(req, body as object);
      if (options.checkResponses) checkedAnswer(route, status, signed);
      signer.send(res, status, signed);
      return;
    }
    if (options.checkResponses) checkedAnswer(route, status, body);
    sendJson(req, res, status, body);
  };
  return [remember, ...(route.before ?? []), ...route.guard.middleware, run];
}

/** Who answers a refusal the handler threw: the route's own answer, else its kind's; none for any other error. */
function refusalAnswerOf(
  route: AnyRoute,
  options: MountOptions,
  error: unknown,
  input: RouteInput<unknown, unknown, unknown>,
): RefusalAnswer | undefined {
  if (!isHttpError(error) || error.status >= 500 || input.res.headersSent) return undefined;
  const own = route.refused;
  if (own && (own.when?.(error, input) ?? true)) return own;
  const ofKind = options.refusals?.[answerKindOf(route)];
  return ofKind && (ofKind.when?.(error, input) ?? true) ? ofKind : undefined;
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
