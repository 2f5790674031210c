/**
 * What a failed database call means for the caller. Pure functions of the error (no database
 * import), so the HTTP error handler can use them too.
 *
 * - `rolled-back`: the server says the statement's transaction did not commit: a serialization
 *   failure (40001), a deadlock (40P01), or the server ending our backend while it worked or
 *   waited (57P01 admin shutdown / pg_terminate_backend, 57P02 crash shutdown, 57P03 cannot
 *   connect now). A FATAL that ends the backend is reported as the error of the statement only
 *   while that statement runs or before it starts: after a commit PostgreSQL first answers
 *   ReadyForQuery, which settles the statement as a success. Repeating is safe.
 * - `not-sent`: the connection failed before the statement was sent (refused, or lost while
 *   connecting). Nothing ran; repeating is safe.
 * - `ambiguous`: the connection died without an answer ("Connection terminated unexpectedly",
 *   08006, 08003, a reset socket). The statement may or may not have committed: repeating is
 *   safe only for a statement without effects (a read).
 */
export type TransientKind = 'rolled-back' | 'not-sent' | 'ambiguous';

interface PgLikeError {
  code?: unknown;
  message?: unknown;
  constraint?: unknown;
}

const rolledBackCodes = new Set(['40001', '40P01', '57P01', '57P02', '57P03']);
const ambiguousCodes = new Set(['08006', '08003', '08000', '08001', '08004', 'ECONNRESET', 'EPIPE']);
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT']);

/** The kind of a transient database failure, or undefined for any other error. */
export function transientKind(error: unknown): TransientKind | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const { code, message } = error as PgLikeError;
  if (typeof code === 'string') {
    if (rolledBackCodes.has(code)) return 'rolled-back';
    if (notSentCodes.has(code)) return 'not-sent';
    if (ambiguousCodes.has(code)) return 'ambiguous';
  }
  if (typeof message !== 'string') return undefined;
  // node-postgres's own messages: on connect, and when the socket closes under a query.
  if (
    message === 'timeout exceeded when trying to connect' ||
    message === 'Connection terminated due to connection timeout'
  )
    return 'not-sent';
  if (/^Connection terminated( unexpectedly)?$/.test(message)) return 'ambiguous';
  if (
    message === 'Client has encountered a connection error and is not queryable' ||
    message === 'Client was closed and is not queryable'
  )
    return 'not-sent';
  return undefined;
}

export const isTransientDatabaseError = (error: unknown): boolean => transientKind(error) !== undefined;

/** The constraint a unique violation (23505) names, or undefined for any other error. */
export function uniqueViolation(error: unknown): string | undefined {
  const { code, constraint } = (error ?? {}) as PgLikeError;
  if (code !== '23505') return undefined;
  return typeof constraint === 'string' ? constraint : '';
}
