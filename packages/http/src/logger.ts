import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { Request, RequestHandler } from 'express';

export type Logger = PinoLogger;

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** Where the lines go; standard output by default (tests pass a stream to read them). */
  destination?: DestinationStream;
  /**
   * Rewrites every finished line before it is written: the last wall for secrets whose shape
   * only the app knows (the license service masks license keys with it), wherever they occur.
   */
  maskLine?: (line: string) => string;
  /**
   * Readable, coloured lines (pino-pretty) instead of JSON. Default: when the lines go to
   * standard output, it is a terminal and NODE_ENV is not production (wantsPrettyLogs).
   */
  pretty?: boolean;
}

/**
 * Whether a person reads the logs as they come: standard output is a terminal, outside
 * production. Production and anything piped or collected (Docker, systemd, a file) stay JSON.
 */
export function wantsPrettyLogs(
  nodeEnv: string | undefined = process.env.NODE_ENV,
  output: { isTTY?: boolean } = process.stdout,
): boolean {
  return output.isTTY === true && nodeEnv !== 'production';
}

const requireHere = createRequire(import.meta.url);

/**
 * pino-pretty as a stream in this thread (not a transport worker), so every line has passed the
 * redaction and `maskLine` before it is formatted; onto `destination` when given (tests read what
 * a terminal would show), else standard output in colour. Loaded only when asked for: production
 * never loads it, and a built app without it in its node_modules writes JSON instead.
 */
function prettyStream(destination: DestinationStream | undefined): DestinationStream | undefined {
  try {
    const pretty = requireHere('pino-pretty') as (options: object) => DestinationStream;
    return pretty({
      colorize: destination === undefined,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
      destination,
    });
  } catch {
    return destination;
  }
}

/**
 * Headers whose values are credentials, in a request or in an answer (the paste service answers
 * a command-line create with its delete token in X-Delete-Token); they are logged (at debug and
 * trace) only as `[redacted]`.
 */
export const secretHeaders = [
  'cookie',
  'set-cookie',
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-csrf-token',
  'x-delete-token',
  'x-paste-password',
  // The verifier of an encrypted paste's key: not the key, but it spends the paste's views.
  'x-paste-key-check',
  'stripe-signature',
] as const;

const secretHeaderSet = new Set<string>(secretHeaders);
/** Any other header whose name says it carries a credential is redacted too. */
const secretHeaderName = /token|secret|passw|signature|api-?key|auth|cookie|session|csrf/i;
/** Headers that hold a URL, whose query may carry a credential (the OAuth state of a sign-in redirect). */
const urlHeaders = new Set(['location', 'content-location', 'referer']);

const redactedPaths = [
  ...secretHeaders.flatMap((name) => [`req.headers["${name}"]`, `res.headers["${name}"]`]),
  // Body parsers attach the raw body to their errors; a request body is never logged.
  'err.body',
];

/**
 * The process's logger: JSON lines (readable ones in a terminal during development, see
 * `pretty`), credentials in headers redacted wherever a line carries `req.headers` or
 * `res.headers` (the request log masks them before, and more widely).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const pretty = options.pretty ?? (options.destination === undefined && wantsPrettyLogs());
  const destination = pretty ? prettyStream(options.destination) : options.destination;
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      ...(options.maskLine ? { hooks: { streamWrite: options.maskLine } } : {}),
    },
    destination,
  );
}

const requestIdKey = Symbol('requestId');
const acceptedRequestId = /^[\w.:@/+=-]{1,64}$/;

/**
 * The request's id: the `X-Request-Id` a proxy in front set, else a new UUID. Made on first use,
 * so a request that logs nothing pays nothing for it.
 */
export function requestIdOf(req: IncomingMessage): string {
  const holder = req as IncomingMessage & { [requestIdKey]?: string };
  if (holder[requestIdKey] === undefined) {
    const given = req.headers['x-request-id'];
    holder[requestIdKey] = typeof given === 'string' && acceptedRequestId.test(given) ? given : randomUUID();
  }
  return holder[requestIdKey];
}

/** Query parameters whose values may be credentials (tokens, keys, passwords, OAuth codes). */
const secretQueryKey = /token|key|pass|secret|sig|auth|code|state|session|csrf|otp/i;
const longest = { path: 200, userId: 64, queryValue: 100 };

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}…` : text);

/** The query string's keys, with the values of those that may hold credentials masked (debug lines only). */
function maskedQuery(search: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    query[clip(key, longest.queryValue)] = secretQueryKey.test(key) ? '[redacted]' : clip(value, longest.queryValue);
  }
  return query;
}

/**
 * A URL with the query values that may hold credentials masked, and its fragment too (a paste's
 * delete link carries its token there).
 */
function maskedUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : '#[redacted]';
  const queryAt = base.indexOf('?');
  if (queryAt === -1) return base + fragment;
  const pairs = [...new URLSearchParams(base.slice(queryAt + 1))].map(
    ([key, value]) =>
      `${encodeURIComponent(key)}=${secretQueryKey.test(key) ? '[redacted]' : encodeURIComponent(value)}`,
  );
  return `${base.slice(0, queryAt)}?${pairs.join('&')}${fragment}`;
}

/** Request or answer headers as a debug line shows them: every credential `[redacted]`. */
function maskedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (secretHeaderSet.has(key) || secretHeaderName.test(key)) masked[key] = '[redacted]';
    else if (urlHeaders.has(key) && typeof value === 'string') masked[key] = maskedUrl(value);
    else masked[key] = value;
  }
  return masked;
}

export interface RequestLogOptions {
  /** The signed-in user's id, if any (default: passport's `req.user.id`). */
  userId?: (req: Request) => string | undefined;
}

const quietPaths = new Set(['/healthz', '/readyz']);

const refusalKey = Symbol('refusal');

/**
 * Marks an answer as a refusal the service means to give (panic mode's 503): its request line is
 * written at info, not error, and without a stack, so anonymous clients cannot fill the error log.
 */
export function markRefusal(res: ServerResponse): void {
  (res as ServerResponse & { [refusalKey]?: boolean })[refusalKey] = true;
}

function isRefusal(res: ServerResponse): boolean {
  return (res as ServerResponse & { [refusalKey]?: boolean })[refusalKey] === true;
}

const defaultUserId = (req: Request) => {
  const id = (req as { user?: { id?: unknown } }).user?.id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * One line per request, written when the answer is done: at info the method, the path without
 * its query string (which may carry tokens), the status, the duration, the request id and the
 * signed-in user; at debug (and trace) also the request's and the answer's headers (credentials
 * redacted, credential-like query values in URL headers masked) and the query keys. 5xx
 * answers are logged at error, 4xx at warn, the rest (and refusals, see `markRefusal`) at info;
 * health probes not at all. No
 * request body is ever logged.
 *
 * The work per request before the answer is one listener; everything else happens only when the
 * line will be written, so hot paths pay next to nothing while info lines are off.
 */
export function requestLogger(logger: Logger, options: RequestLogOptions = {}): RequestHandler {
  const userIdOf = options.userId ?? defaultUserId;
  return (req, res, next) => {
    if (quietPaths.has(req.url) || !logger.isLevelEnabled('error')) return next();
    const started = performance.now();
    res.once('close', () => {
      const status = res.statusCode;
      const aborted = !res.writableFinished;
      const level = isRefusal(res) ? 'info' : status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const url = req.originalUrl ?? req.url;
      const queryAt = url.indexOf('?');
      const userId = userIdOf(req);
      const line: Record<string, unknown> = {
        reqId: requestIdOf(req),
        method: req.method,
        path: clip(queryAt === -1 ? url : url.slice(0, queryAt), longest.path),
        status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (userId !== undefined) line.userId = clip(userId, longest.userId);
      if (aborted) line.aborted = true;
      if (logger.isLevelEnabled('debug')) {
        if (queryAt !== -1) line.query = maskedQuery(url.slice(queryAt + 1));
        line.ip = req.ip;
        line.req = { headers: maskedHeaders(req.headers) };
        line.res = { headers: maskedHeaders(res.getHeaders()) };
      }
      logger[level](line, aborted ? 'request aborted' : 'request completed');
    });
    next();
  };
}
