/**
 * The one error type a service throws for an answer other than success: the status and the
 * message the client sees, and for validation failures the details keyed by field name.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra fields of the error body (e.g. `valid: false` on license validation). */
    readonly extra?: Record<string, unknown>,
    /** The stable code of `errorCodes` this error was made from (audit records and logs read it). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
