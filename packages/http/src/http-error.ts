/**
 * The one error type a service throws for an answer other than success: the status and the
 * message the client sees, and for validation failures the details keyed by field name.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, string>,
    /** Extra fields of the error body (e.g. `valid: false` on license validation). */
    readonly extra?: Record<string, unknown>,
    /** The stable code of `errorCodes` this error was made from (audit records and logs read it). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  static badRequest(message: string, details?: Record<string, string>) { return new HttpError(400, message, details); }
  static unauthorized(message = 'Unauthorized') { return new HttpError(401, message); }
  static forbidden(message = 'Forbidden') { return new HttpError(403, message); }
  static notFound(message = 'Not found') { return new HttpError(404, message); }
  static conflict(message: string) { return new HttpError(409, message); }
}

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
