import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplicaReads, type ReplicaReads } from '../src/index.js';
import {
  NO_POSTGRES_BINARIES,
  postgresBinaries,
  startStreamingPair,
  type StreamingPair,
} from '../src/testing/index.js';

// Against a real streaming replica made by the test (initdb, pg_basebackup -R, pg_ctl) with the
// system's PostgreSQL binaries; skipped, with a line saying why, where there are none.
const bin = postgresBinaries();
if (!bin) console.log(`read replica tests ${NO_POSTGRES_BINARIES}`);

// pg-pool's end() returns before its clients' connections have closed. A server the test stops
// right after would reach such a closing client, and its pool would throw the 'error' it re-emits.
const testPool = (connectionString: string, max: number) => {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => {});
  return pool;
};

const inRecovery = async (reads: Pick<ReplicaReads, 'query'>) =>
  (await reads.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows[0]!.standby;

describe.skipIf(!bin)('reads from a streaming replica', () => {
  let pair: StreamingPair;
  let primary: pg.Pool;
  let replicaAdmin: pg.Pool;
  const opened: ReplicaReads[] = [];
  const readsWith = (options: { maxLagMs?: number } = {}) => {
    const logged: string[] = [];
    const reads = createReplicaReads({
      primary,
      replicaUrl: pair.replicaUrl,
      checkEveryMs: 60_000,
      log: (message) => logged.push(message),
      ...options,
    });
    opened.push(reads);
    return { reads, logged };
  };

  beforeAll(async () => {
    pair = await startStreamingPair({ bin });
    primary = testPool(pair.primaryUrl, 4);
    replicaAdmin = testPool(pair.replicaUrl, 1);
    await primary.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    await primary.query("INSERT INTO notes (body) VALUES ('first')");
  }, 120_000);
  afterAll(async () => {
    for (const reads of opened) await reads.close();
    await replicaAdmin?.end();
    await primary?.end();
    await pair?.close();
  });

  it('reads go to the replica once it is found well; reads inside onPrimary go to the primary', async () => {
    const { reads, logged } = readsWith();
    // Before the first check answers, the primary answers.
    await reads.check();
    expect(reads.usingReplica()).toBe(true);
    expect(await inRecovery(reads)).toBe(true);
    expect(
      await reads.onPrimary(async () => {
        await Promise.resolve();
        return inRecovery(reads);
      }),
    ).toBe(false);
    expect(reads.replicaReads()).toBe(1);
    await expect
      .poll(async () => (await reads.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).rows[0]!.n)
      .toBe(1);
    expect(logged).toEqual(['read replica in use for lists, pages, statistics and exports']);
  });

  it('a replica further behind than allowed is bypassed (logged once) and used again once it catches up', async () => {
    const { reads, logged } = readsWith({ maxLagMs: 1_000 });
    await reads.check();
    expect(reads.usingReplica()).toBe(true);
    await replicaAdmin.query('SELECT pg_wal_replay_pause()');
    try {
      await primary.query("INSERT INTO notes (body) VALUES ('written while the replica waits')");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await primary.query("INSERT INTO notes (body) VALUES ('and another')");
      await expect
        .poll(
          async () => {
            await reads.check();
            return reads.usingReplica();
          },
          { timeout: 10_000, interval: 200 },
        )
        .toBe(false);
      await reads.check();
      expect(await inRecovery(reads)).toBe(false);
      expect(logged.filter((line) => line.startsWith('read replica bypassed'))).toHaveLength(1);
      expect(logged.at(-1)).toMatch(
        /^read replica bypassed, reads go to the primary: it is \d+ s behind \(more than 1 s\)$/,
      );
    } finally {
      await replicaAdmin.query('SELECT pg_wal_replay_resume()');
    }
    await expect
      .poll(
        async () => {
          await reads.check();
          return reads.usingReplica();
        },
        { timeout: 10_000, interval: 200 },
      )
      .toBe(true);
    expect(logged.at(-1)).toBe('read replica back in use');
  });

  it('a replica that is down is bypassed (logged once): the primary answers, also the read that found it down', async () => {
    const { reads, logged } = readsWith();
    await reads.check();
    expect(reads.usingReplica()).toBe(true);
    await replicaAdmin.end();
    await pair.stopReplica();
    try {
      // The first read meets the dead connection and is answered by the primary.
      expect(await inRecovery(reads)).toBe(false);
      await reads.check();
      await reads.check();
      expect(reads.usingReplica()).toBe(false);
      expect(await inRecovery(reads)).toBe(false);
      expect(logged.filter((line) => line.startsWith('read replica bypassed'))).toHaveLength(1);
    } finally {
      await pair.startReplica();
      replicaAdmin = testPool(pair.replicaUrl, 1);
    }
    await expect
      .poll(
        async () => {
          await reads.check();
          return reads.usingReplica();
        },
        { timeout: 20_000, interval: 300 },
      )
      .toBe(true);
    expect(await inRecovery(reads)).toBe(true);
  });
});
