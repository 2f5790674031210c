import express, { type Express, type Request, type RequestHandler } from 'express';
import helmet from 'helmet';
import { appError } from './error-codes.js';
import { isQuickJsonType, jsonBody } from './performance/json-body.js';
import { requestLogger, type Logger } from './logger.js';

export interface CommonMiddlewareOptions {
  logger: Logger;
  /** Largest JSON or form body accepted, e.g. '1mb'. */
  bodyLimit: string;
  /** Express's `trust proxy` setting. */
  trustProxy: string;
  /** Extra Content-Security-Policy directives (helmet's defaults otherwise). */
  contentSecurityPolicy?: Record<string, string[]>;
  /** The signed-in user's id for the request log (default: passport's `req.user.id`). */
  userId?: (req: Request) => string | undefined;
  /** Requests whose route parses its own body (in its `before`): the shared parsers leave them alone. */
  ownBodyParser?: (req: Request) => boolean;
  /**
   * The app's busiest routes, served right after the headers and the request log, before the
   * body parsers and everything the app mounts later; they parse their own bodies. A request
   * they do not answer goes on down the stack.
   */
  hotLane?: RequestHandler;
  /** Reads of a session that wrote in the last 5 s go to the primary (recent-writes.ts); before the hot lane. */
  readYourWrites?: RequestHandler;
}

/** Parses `TRUST_PROXY`: `true`/`false`, a hop count, or a comma-separated list of addresses. */
function trustProxyValue(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** Whether `TRUST_PROXY` trusts any proxy (so its `X-Forwarded-Proto: https` can make a request secure). */
export function trustsAProxy(value: string): boolean {
  const trusted = trustProxyValue(value);
  return trusted !== false && trusted !== 0;
}

/** Security headers, request logs and body parsers shared by both services. */
export function commonMiddleware(app: Express, options: CommonMiddlewareOptions): void {
  app.set('trust proxy', trustProxyValue(options.trustProxy));
  app.disable('x-powered-by');
  app.use(
    helmet({
      // upgrade-insecure-requests would break pages served over plain http (a laptop, a LAN);
      // deployments behind TLS get HSTS from helmet anyway.
      contentSecurityPolicy: {
        directives: {
          ...helmet.contentSecurityPolicy.getDefaultDirectives(),
          'upgrade-insecure-requests': null,
          ...options.contentSecurityPolicy,
        },
      },
    }),
  );
  app.use(requestLogger(options.logger, { userId: options.userId }));
  if (options.readYourWrites) app.use(options.readYourWrites);
  if (options.hotLane) app.use(options.hotLane);
  const json = jsonBody({ limit: options.bodyLimit });
  const form = express.urlencoded({ extended: false, limit: options.bodyLimit });
  const skip = options.ownBodyParser;
  // A UTF-8 JSON body goes to the JSON parser alone: the form parser would only find it read.
  app.use((req, res, next) => {
    if (skip?.(req)) return next();
    const type = req.headers['content-type'];
    if (type !== undefined && isQuickJsonType(type)) return json(req, res, next);
    json(req, res, (error?: unknown) => (error ? next(error) : form(req, res, next)));
  });
}

/**
 * 404 `{ success: false, error: "Not found" }` for unknown `/api` paths, in both services' error
 * styles alike; mount after every router. Other paths fall through to the app's HTML 404 page.
 */
export const apiNotFound: RequestHandler = (req, _res, next) => {
  const isApi = req.path === '/api' || req.path.startsWith('/api/');
  next(isApi ? appError('NOT_FOUND', { extra: { success: false } }) : undefined);
};
