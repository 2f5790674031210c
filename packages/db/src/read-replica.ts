import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { z } from 'zod';
import { isTransientDatabaseError } from './database-errors.js';
import { parseRow } from './rows.js';

/** How far behind the primary a replica may be and still serve reads. */
export const REPLICA_MAX_LAG_MS = 10_000;

export interface ReplicaReadsOptions {
  /** The primary's pool: every write, and every read when the replica is absent, down or behind. */
  primary: pg.Pool;
  /** The streaming replica's URL (DATABASE_REPLICA_URL); none: every read goes to the primary. */
  replicaUrl?: string;
  maxConnections?: number;
  maxLagMs?: number;
  /** How often the replica's health and lag are checked (not per request). */
  checkEveryMs?: number;
  /** Hears each change: the replica bypassed (with why), and in use again. Logged once each. */
  log?: (message: string, level: 'warn' | 'info') => void;
  /** The replica pool's client class: the primary's (pooled-client.ts), as both sit behind the same kind of pooler. */
  Client?: typeof pg.Client;
}

/**
 * Where lists, pages, statistics and exports read: a Queryable that runs on the replica while it
 * is up and at most `maxLagMs` behind, and on the primary otherwise, or inside
 * `onPrimary` (a session that wrote in the last seconds must read its own write). Pass it
 * only to reads that may be a few seconds old; validation, view counting and every write keep
 * the primary's pool.
 */
export interface ReplicaReads {
  query: pg.Pool['query'];
  /** Runs `work` (and everything it awaits) with these reads on the primary. */
  onPrimary: <T>(work: () => T) => T;
  /** Whether reads go to the replica now (outside `onPrimary`). */
  usingReplica: () => boolean;
  /** Reads answered by the replica so far. */
  replicaReads: () => number;
  /** Checks the replica now (tests; the timer does it every `checkEveryMs`). */
  check: () => Promise<void>;
  close: () => Promise<void>;
}

const primaryOnly = new AsyncLocalStorage<true>();

// Lag is 0 when everything received has been replayed: an idle primary sends no new
// transactions, and the last replay's timestamp would otherwise look ever older.
const lagSql = `SELECT pg_is_in_recovery() AS standby,
  CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
       ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000, 0) END::float8 AS lag_ms`;
const lagRow = z.object({ standby: z.boolean(), lag_ms: z.number() });

export function createReplicaReads(options: ReplicaReadsOptions): ReplicaReads {
  const { primary } = options;
  const maxLagMs = options.maxLagMs ?? REPLICA_MAX_LAG_MS;
  const log = options.log ?? ((message: string) => console.warn(message));
  const replica = options.replicaUrl
    ? new pg.Pool({ connectionString: options.replicaUrl, max: options.maxConnections ?? 10, Client: options.Client })
    : undefined;
  replica?.on('error', () => {});
  // Until the first check answers, reads stay on the primary.
  let healthy = false;
  let bypassReason: string | undefined;
  let served = 0;

  const setState = (ok: boolean, reason?: string) => {
    if (ok && !healthy)
      log(
        bypassReason === undefined
          ? 'read replica in use for lists, pages, statistics and exports'
          : 'read replica back in use',
        'info',
      );
    if (!ok && (healthy || bypassReason === undefined))
      log(`read replica bypassed, reads go to the primary: ${reason}`, 'warn');
    healthy = ok;
    bypassReason = ok ? '' : reason;
  };

  const check = async () => {
    if (!replica) return;
    try {
      const { rows } = await replica.query(lagSql);
      const row = parseRow(lagRow, rows);
      if (!row.standby) setState(false, 'the replica URL points to a server that is not in recovery (not a replica)');
      else if (row.lag_ms > maxLagMs)
        setState(false, `it is ${Math.round(row.lag_ms / 1000)} s behind (more than ${maxLagMs / 1000} s)`);
      else setState(true);
    } catch (error) {
      setState(false, `it does not answer (${(error as Error).message})`);
    }
  };
  const timer = replica
    ? setInterval(() => {
        void check();
      }, options.checkEveryMs ?? 2_000)
    : undefined;
  timer?.unref();
  const first = check();

  const useReplica = () => replica !== undefined && healthy && primaryOnly.getStore() === undefined;

  // A replica that fails between two checks: the read is answered by the primary, and the
  // replica is bypassed until the next check finds it well.
  const query = (async (...args: Parameters<pg.Pool['query']>) => {
    if (!useReplica()) return (primary.query as (...a: unknown[]) => unknown)(...args);
    try {
      const result = await (replica!.query as (...a: unknown[]) => Promise<unknown>)(...args);
      served += 1;
      return result;
    } catch (error) {
      if (!isTransientDatabaseError(error)) throw error;
      setState(false, `a read failed (${(error as Error).message})`);
      return (primary.query as (...a: unknown[]) => unknown)(...args);
    }
  }) as unknown as pg.Pool['query'];

  return {
    query,
    // Without a replica every read is on the primary already. Running the store would also be
    // the process's first AsyncLocalStorage.run, after which Node tracks a context through every
    // promise and async callback of every request (measured: about 15 µs of a create's CPU).
    onPrimary: replica ? (work) => primaryOnly.run(true, work) : (work) => work(),
    usingReplica: useReplica,
    replicaReads: () => served,
    check: async () => {
      await first;
      await check();
    },
    async close() {
      if (timer) clearInterval(timer);
      await first;
      await replica?.end();
    },
  };
}
