import type { ErrorRequestHandler, Request, Response } from 'express';
import { describeError, requestIdOf, type Logger } from '@app/http';

/**
 * `POST /api/paste` from the command line: `Content-Type: text/plain`, the body is the content,
 * the options come as query parameters and the password as a header. Answers and errors are
 * plain text too (`res.locals.plainText`).
 */
export const isPlainTextPost = (req: Request): boolean => req.is('text/plain') === 'text/plain';

/** The query parameters a command-line create takes (the rest are ignored, as unknown JSON fields are). */
const QUERY_FIELDS = ['maxViews', 'expiresIn', 'title', 'language'] as const;

/** The create request's fields from a plain-text post, for the same schema as JSON. */
export function plainTextFields(req: Request, content: string): Record<string, unknown> {
  const fields: Record<string, unknown> = { content };
  for (const name of QUERY_FIELDS) if (req.query[name] !== undefined) fields[name] = req.query[name];
  const password = req.headers['x-paste-password'];
  if (typeof password === 'string' && password !== '') fields.password = password;
  return fields;
}

export const wantsPlainText = (res: Response): boolean => res.locals.plainText === true;

/**
 * Errors of a plain-text create as plain text: the error text and a newline (a validation
 * error adds one line per field), with the status and headers the JSON answer would have.
 */
export function plainTextErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!wantsPlainText(res) || res.headersSent) return next(error);
    const { status, message, details, headers } = describeError(error);
    // Logged as the main error handler logs them: the path without its query string.
    if (status >= 500)
      logger.error(
        { err: error, reqId: requestIdOf(req), method: req.method, path: req.originalUrl.split('?')[0] },
        'request failed',
      );
    if (headers) res.set(headers);
    // The details name their field already ("maxViews must be ...").
    const lines = [message, ...Object.values(details ?? {}).map((text) => `  ${String(text)}`)];
    res
      .status(status)
      .type('text/plain; charset=utf-8')
      .send(`${lines.join('\n')}\n`);
  };
}
