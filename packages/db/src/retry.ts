import type pg from 'pg';
import { transientKind } from './database-errors.js';

/**
 * Runs `work`, and once more when it failed with a transient database error that leaves it
 * safe to repeat: always when nothing committed (`rolled-back`, `not-sent`); after an
 * `ambiguous` failure (the connection died without an answer, so a write may have committed)
 * only when `repeatable` says the work has no effect to double. A second failure is thrown: the
 * error handler answers it with 503 and `Retry-After`.
 *
 * The retry waits a moment (20-50 ms): when the server drops every connection at once, the
 * pool's other idle clients are dead too, and it learns so only as their sockets report it.
 */
export async function retryTransient<T>(work: () => Promise<T>, options: { repeatable?: boolean } = {}): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const kind = transientKind(error);
    if (!kind || (kind === 'ambiguous' && !options.repeatable)) throw error;
    await retryPause();
    return work();
  }
}

export const retryPause = () => new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));

const leadingComments = /^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/;
const writes =
  /\b(?:INSERT|UPDATE|DELETE|MERGE|TRUNCATE|CREATE|DROP|ALTER|GRANT|NOTIFY|LISTEN|LOCK|SET|CALL|COPY|DO|nextval|setval|pg_notify|pg_advisory\w*)\b/i;
// A set-returning function in FROM may write (license_validate_batch does); these ones only read.
const functionInFrom =
  /\b(?:FROM|JOIN)\s+(?:LATERAL\s+)?(?!unnest\s*\(|generate_series\s*\(|jsonb?_\w+\s*\()[\w".]+\s*\(/i;

/**
 * Whether one statement only reads: a single SELECT, SHOW, VALUES or WITH ... SELECT that names
 * no writing command, sequence or lock function, and calls no function in FROM other than the
 * set functions above. Functions in the select list are taken to be pure: this project calls no
 * writing function there. Anything else counts as a write (the safe side).
 */
export function isReadOnlyStatement(text: string): boolean {
  const sql = text.replace(leadingComments, '');
  if (!/^(?:SELECT|SHOW|VALUES|WITH|TABLE)\b/i.test(sql)) return false;
  if (/;\s*\S/.test(sql)) return false;
  return !writes.test(sql) && !functionInFrom.test(sql);
}

function statementText(first: unknown): string | undefined {
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string') {
    if (typeof (first as { submit?: unknown }).submit === 'function') return undefined;
    return (first as { text: string }).text;
  }
  return undefined;
}

/**
 * Makes `pool.query` retry once as `retryTransient` does: a statement sent through the pool is
 * its own transaction (the pool's clients never hold an open one), so a failure that proves it
 * did not commit can always be repeated, and an ambiguous one when the statement only reads.
 * Callback calls and submittables (cursors, streams) are left alone.
 */
export function retryPoolQueries(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { query: unknown }).query = (...args: unknown[]) => {
    const text = statementText(args[0]);
    if (text === undefined || typeof args[args.length - 1] === 'function') return query(...args);
    // An explicit COMMIT inside the text would let an earlier part commit before a later one fails.
    if (/\bCOMMIT\b/i.test(text)) return query(...args);
    return retryTransient(() => query(...args) as Promise<unknown>, { repeatable: isReadOnlyStatement(text) });
  };
}
