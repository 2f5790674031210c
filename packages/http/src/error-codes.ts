import { HttpError } from './http-error.js';

/** What a stable error code stands for: its HTTP status and the text the specifications give it. */
export type ErrorCatalogue = Record<string, { status: number; message: string }>;

/**
 * The error answers both services share, by a stable code. Each app adds its own catalogue with
 * `defineErrorCodes` (apps/paste/src/common/error-codes.ts, apps/license/src/common/error-codes.ts):
 * a catalogue is the one place that decides a status; services throw `appError('PASTE_NOT_FOUND')`
 * and the error handler renders it as JSON, HTML or text.
 */
export const errorCodes = {
  VALIDATION_FAILED: { status: 400, message: 'Validation failed' },
  INVALID_JSON: { status: 400, message: 'Invalid JSON body' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  INVALID_CSRF_TOKEN: { status: 403, message: 'Invalid CSRF token' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  CONFLICT: { status: 409, message: 'Conflict: this value is already taken' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests, please try again later' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable, please retry' },
  BODY_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_ENCODING: { status: 415, message: 'Unsupported request encoding' },
  REQUEST_ABORTED: { status: 400, message: 'Request aborted' },
  INVALID_CHARACTERS: { status: 400, message: 'Invalid characters in input' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  // The message names the callback URL and the OAUTH_* variables to set (`signInSetupHint`).
  SIGN_IN_NOT_CONFIGURED: { status: 503, message: 'Sign-in is not configured: set the OAUTH_* variables' },
} as const satisfies ErrorCatalogue;

export type ErrorCode = keyof typeof errorCodes;

type ErrorOptions = { message?: string; details?: Record<string, unknown>; extra?: Record<string, unknown> };

/**
 * The error of a shared code, ready to throw. `message` replaces the catalogue's text only where
 * the text carries a value (`Content exceeds maximum size of 2 MB`); `details` and `extra` as HttpError.
 */
export function appError(code: ErrorCode, options: ErrorOptions = {}): HttpError {
  const { status, message } = errorCodes[code];
  return new HttpError(status, options.message ?? message, options.details, options.extra, code);
}

/**
 * An app's catalogue on top of the shared one, and its `appError`, which takes the codes of both.
 * A code of the app that repeats a shared one is a compile error.
 */
export function defineErrorCodes<const Own extends ErrorCatalogue>(
  own: Own & { [code in keyof Own]: code extends ErrorCode ? never : Own[code] },
) {
  const codes = { ...errorCodes, ...own } as typeof errorCodes & Own;
  return {
    errorCodes: codes,
    appError: (code: keyof typeof codes & string, options: ErrorOptions = {}): HttpError => {
      const { status, message } = codes[code];
      return new HttpError(status, options.message ?? message, options.details, options.extra, code);
    },
  };
}
