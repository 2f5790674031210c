import type { ErrorRequestHandler, Request } from 'express';
import { isTransientDatabaseError, uniqueViolation } from '@app/db/errors';
import { markRefusal, requestIdOf, type Logger } from './logger.js';
import { isHttpError } from './http-error.js';
import { errorCodes, type ErrorCode } from './error-codes.js';
import type { RefusalAnswer } from './routes.js';

/** The `text` answer kind's refusal: its text and a newline, as plain text, with its status. */
export const plainTextRefusal: RefusalAnswer = {
  render: (error, { res }) => {
    res.status(error.status).type('text/plain').send(`${error.message}\n`);
  },
};

export interface ErrorHandlerOptions {
  /**
   * The JSON error body: `{ success: false, error }` when true, `{ error }` when false (the two
   * specifications differ here). Both add `details` for validation.
   */
  successFlag: boolean;
  logger: Logger;
  /**
   * Renders an error as an HTML page for requests that want one (the paste pages); return
   * `undefined` to answer JSON.
   */
  renderHtml?: (req: Request, status: number, message: string, answer: ErrorAnswer) => string | undefined;
  /**
   * Codes of refusals the service answers with a 5xx on purpose (the license service's panic
   * mode): no error line with a stack here, and the request log's line at info. Anyone may send
   * such requests by the thousand; they are no failure of the service.
   */
  refusalCodes?: readonly string[];
}

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** Turns whatever a route threw into one HTTP answer; the only place that does so. */
export function createErrorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const answer = describeError(error);
    const { status, message, details, extra, headers } = answer;
    // The path without its query string (which may carry tokens); the request id ties this line to the request's.
    const refusal = isHttpError(error) && error.code !== undefined && options.refusalCodes?.includes(error.code);
    if (refusal) markRefusal(res);
    else if (status >= 500)
      options.logger.error(
        { err: error, reqId: requestIdOf(req), method: req.method, path: req.originalUrl.split('?')[0] },
        'request failed',
      );
    if (headers) res.set(headers);
    const html = options.renderHtml?.(req, status, message, answer);
    if (html !== undefined) {
      res.status(status).type('html').send(html);
      return;
    }
    const body: Record<string, unknown> = options.successFlag
      ? { success: false, ...extra, error: message }
      : { ...extra, error: message };
    if (details) body.details = details;
    res.status(status).json(body);
  };
}

/** An error as the client is answered: status, text, and the extra fields of the JSON body. */
export interface ErrorAnswer {
  status: number;
  message: string;
  details?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The answer of a catalogue code (status and text from `errorCodes`). */
function answerOf(code: ErrorCode, headers?: Record<string, string>): ErrorAnswer {
  const { status, message } = errorCodes[code];
  return headers ? { status, message, headers } : { status, message };
}

/** The answer to an error that is not an HttpError: a parser's, a database's, or a bug (500). */
export function describeError(error: unknown): ErrorAnswer {
  if (isHttpError(error))
    return { status: error.status, message: error.message, details: error.details, extra: error.extra };
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return answerOf('INVALID_JSON');
    case 'entity.too.large':
      return answerOf('BODY_TOO_LARGE');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return answerOf('UNSUPPORTED_ENCODING');
    case 'request.aborted':
      return answerOf('REQUEST_ABORTED');
  }
  // PostgreSQL refused a character of the input (a NUL in a path segment, say): the client's fault.
  if ((error as { code?: unknown })?.code === '22021') return answerOf('INVALID_CHARACTERS');
  // Services turn the violations of the constraints they know into their own 409; this catches
  // the rest, so a value taken by a simultaneous request is never a 500.
  if (uniqueViolation(error) !== undefined) return answerOf('CONFLICT');
  // A database that is briefly unreachable (after the one retry where it was safe).
  if (isTransientDatabaseError(error)) return answerOf('SERVICE_UNAVAILABLE', { 'Retry-After': '1' });
  // Errors of Express and its parsers carry a 4xx status (e.g. a path with bad percent-encoding);
  // only those marked `expose` have a message fit for the client. The one status not taken from
  // the catalogue: it comes from the library that raised the error, passed through as it is.
  const status = parserError?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: parserError.expose ? (error as Error).message : 'Bad request' };
  }
  return answerOf('INTERNAL_ERROR');
}
