import type pg from 'pg';
import { transientKind } from './database-errors.js';
import { retryPause } from './retry.js';

/** Anything that runs a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** Marks an error of the COMMIT itself: after a lost connection there, the outcome is unknown. */
const atCommit = new WeakSet<object>();

/**
 * Runs `work` inside one transaction on one client; rolls back when it throws.
 *
 * A transient database failure before COMMIT was sent (a serialization failure, a deadlock, a
 * terminated backend, a lost connection) leaves nothing committed: the whole transaction is run
 * once more on a fresh client. So `work` must only touch the database (effects outside it
 * belong after the commit, as everywhere in this project). A failure of the COMMIT itself is
 * retried only when the server says it rolled back; a lost connection there is thrown.
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  try {
    return await runTransaction(pool, work);
  } catch (error) {
    const kind = transientKind(error);
    if (!kind || (kind === 'ambiguous' && atCommit.has(error as object))) throw error;
    await retryPause();
    return runTransaction(pool, work);
  }
}

async function runTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    try {
      await client.query('COMMIT');
    } catch (error) {
      if (error && typeof error === 'object') atCommit.add(error);
      throw error;
    }
    return result;
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    // A serialization failure or deadlock leaves the connection fine; any other transient
    // failure leaves it dead or doubtful.
    if (transientKind(error) && code !== '40001' && code !== '40P01') broken = error;
    else await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // A client whose connection failed is discarded, never handed to the next caller.
    client.release(broken === undefined ? undefined : broken instanceof Error ? broken : true);
  }
}
