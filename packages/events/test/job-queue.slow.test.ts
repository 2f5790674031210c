import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { createJobQueue, type JobQueue } from '../src/index.js';

const migrations = path.join(import.meta.dirname, 'fixtures/migrations');
const logger = createLogger({ level: 'silent' });

const until = async <T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> => {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`not done within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A daily cron due in the current minute: pg-boss sends a due run during the minute after its
 * due time, so exactly one run is expected however long the test takes. Too close to the
 * minute's end, it waits for the next minute first.
 */
async function cronDueThisMinute(): Promise<string> {
  const seconds = new Date().getUTCSeconds();
  if (seconds > 45) await sleep((61 - seconds) * 1000);
  const now = new Date();
  return `${now.getUTCMinutes()} ${now.getUTCHours()} * * *`;
}

describe(`job queue (${testDatabaseBackend()})`, () => {
  let database: Database;
  let queue: JobQueue;
  // Handlers write through the same pool pg-boss uses: on the embedded database (one
  // connection) this proves neither waits on the other.
  const record = (name: string) => async (data: unknown) => {
    await database.pool.query('INSERT INTO handled (queue, data) VALUES ($1, $2)', [
      name,
      JSON.stringify(data ?? null),
    ]);
  };
  const handled = async (name: string) =>
    (
      await database.pool.query<{ data: unknown }>('SELECT data FROM handled WHERE queue = $1 ORDER BY id', [name])
    ).rows.map((row) => row.data);

  beforeAll(async () => {
    database = await createTestDatabase(migrations);
    queue = await createJobQueue({
      pool: database.pool,
      logger,
      pollingIntervalSeconds: 0.5,
      cronMonitorIntervalSeconds: 1,
      cronWorkerIntervalSeconds: 1,
    });
  });
  afterAll(async () => {
    await queue?.stop();
    await database?.close();
  });

  it('handles a job that was sent', async () => {
    await queue.work<{ n: number }>('send-and-work', record('send-and-work'));
    const id = await queue.send('send-and-work', { n: 1 });
    expect(id).toEqual(expect.any(String));
    expect(
      await until(
        () => handled('send-and-work'),
        (rows) => rows.length === 1,
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('retries a failing job, which succeeds on the retry', async () => {
    let attempts = 0;
    await queue.work<{ n: number }>(
      'flaky',
      async (data) => {
        attempts += 1;
        if (attempts === 1) throw new Error('receiver down');
        await record('flaky')(data);
      },
      { retryLimit: 3, retryDelaySeconds: 1 },
    );
    await queue.send('flaky', { n: 2 });
    expect(
      await until(
        () => handled('flaky'),
        (rows) => rows.length === 1,
      ),
    ).toEqual([{ n: 2 }]);
    expect(attempts).toBe(2);
  });

  it('honours retry options given to send', async () => {
    let attempts = 0;
    await queue.work('flaky-send', async () => {
      attempts += 1;
      if (attempts < 3) throw new Error('still down');
      await record('flaky-send')('ok');
    });
    await queue.send('flaky-send', {}, { retryLimit: 2, retryDelay: 0 });
    await until(
      () => handled('flaky-send'),
      (rows) => rows.length === 1,
    );
    expect(attempts).toBe(3);
  });

  it('starts a delayed job no earlier than startAfterSeconds', async () => {
    await queue.work('later', record('later'));
    const sentAt = Date.now();
    await queue.send('later', { n: 3 }, { startAfterSeconds: 2 });
    await until(
      () => handled('later'),
      (rows) => rows.length === 1,
    );
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1900);
  });

  it('drops a second job with the same singletonKey in one time slot', async () => {
    const first = await queue.send(
      'single',
      { n: 1 },
      { singletonKey: 'k', singletonSeconds: 60, startAfterSeconds: 60 },
    );
    const second = await queue.send(
      'single',
      { n: 2 },
      { singletonKey: 'k', singletonSeconds: 60, startAfterSeconds: 60 },
    );
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
  });

  it('runs a scheduled job when it is due, and runNow runs it at once', { timeout: 60_000 }, async () => {
    await queue.schedule('daily', await cronDueThisMinute(), () => record('daily')({}));
    // The cron check runs every second here, so the due run follows shortly.
    await until(
      () => handled('daily'),
      (rows) => rows.length >= 1,
    );
    await queue.runNow('daily');
    await until(
      () => handled('daily'),
      (rows) => rows.length >= 2,
    );
    await sleep(2500);
    expect(await handled('daily')).toHaveLength(2);
  });
});

describe(`job queue across instances (${testDatabaseBackend()})`, () => {
  let database: Database;
  let queues: JobQueue[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(migrations);
    queues = [];
    for (let i = 0; i < 2; i++) {
      queues.push(
        await createJobQueue({
          pool: database.pool,
          logger,
          pollingIntervalSeconds: 0.5,
          cronMonitorIntervalSeconds: 1,
          cronWorkerIntervalSeconds: 1,
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.stop()));
    await database?.close();
  });

  it('creates the same queues from two instances at once without failing', async () => {
    // Concurrent pg-boss createQueue calls can deadlock on PostgreSQL (each attaches a partition
    // and adds a foreign key to the queue table); the queue retries them.
    const names = Array.from({ length: 8 }, (_, i) => `race-${i}`);
    await Promise.all(queues.flatMap((queue) => names.map((name) => queue.send(name, {}))));
    const { rows } = await database.pool.query("SELECT count(*) AS n FROM pgboss.queue WHERE name LIKE 'race-%'");
    expect(rows[0].n).toBe(8);
  });

  it(
    'runs a schedule registered by two instances once per due time, and each job once',
    { timeout: 60_000 },
    async () => {
      const cron = await cronDueThisMinute();
      const runs: number[] = [];
      await Promise.all(
        queues.map((queue, index) =>
          queue.schedule('shared-cron', cron, () => {
            runs.push(index);
            return Promise.resolve();
          }),
        ),
      );
      const jobs: number[] = [];
      await Promise.all(
        queues.map((queue, index) =>
          queue.work('shared-work', () => {
            jobs.push(index);
            return Promise.resolve();
          }),
        ),
      );
      await Promise.all(Array.from({ length: 20 }, (_, n) => queues[n % 2]!.send('shared-work', { n })));
      await until(
        () => jobs.length,
        (count) => count >= 20,
      );
      await until(
        () => runs.length,
        (count) => count >= 1,
      );
      await sleep(3000);
      expect(jobs).toHaveLength(20);
      expect(runs).toHaveLength(1);
    },
  );

  it('stops promptly, finishing the job in progress', async () => {
    const database2 = await createTestDatabase(migrations);
    const queue = await createJobQueue({ pool: database2.pool, logger, pollingIntervalSeconds: 0.5 });
    let finished = false;
    let started = false;
    await queue.work('slow', async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 700));
      finished = true;
    });
    await queue.send('slow', {});
    await until(() => started, Boolean);
    const stopStart = Date.now();
    await queue.stop();
    expect(finished).toBe(true);
    expect(Date.now() - stopStart).toBeLessThan(3000);
    const { rows } = await database2.pool.query("SELECT state FROM pgboss.job WHERE name = 'slow'");
    expect(rows).toEqual([{ state: 'completed' }]);
    await database2.close();
  });

  it('gives up on a job that outlives stopTimeoutMs, fails it for a later retry, and never touches the closed pool', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const database2 = await createTestDatabase(migrations);
    const queue = await createJobQueue({
      pool: database2.pool,
      logger,
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 1000,
    });
    try {
      let started = false;
      await queue.work('stuck', async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 2500));
      });
      await queue.send('stuck', {});
      await until(() => started, Boolean);
      const stopStart = Date.now();
      await Promise.all([queue.stop(), queue.stop()]);
      expect(Date.now() - stopStart).toBeLessThan(2000);
      const { rows } = await database2.pool.query("SELECT state FROM pgboss.job WHERE name = 'stuck'");
      expect(rows).toEqual([{ state: 'retry' }]);
      await expect(queue.send('stuck', {})).rejects.toThrow('job queue is stopped');
      await database2.close();
      // The handler finishes after the pool is closed; pg-boss's attempt to complete it must stay quiet.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe(`job queue latency (${testDatabaseBackend()})`, () => {
  let database: Database;
  let sender: JobQueue;
  let other: JobQueue;

  beforeAll(async () => {
    database = await createTestDatabase(migrations);
    // The production defaults: idle workers poll every 2 s.
    sender = await createJobQueue({ pool: database.pool, logger });
    other = await createJobQueue({ pool: database.pool, logger });
  });
  afterAll(async () => {
    await sender?.stop();
    await other?.stop();
    await database?.close();
  });

  it("wakes this instance's worker at once when this instance sends a job (polling every 2 s otherwise)", async () => {
    const started = new Map<number, number>();
    await sender.work<{ n: number }>('wake-local', ({ n }) => {
      started.set(n, Date.now());
      return Promise.resolve();
    });
    const measured: number[] = [];
    for (let n = 0; n < 5; n++) {
      await sleep(300);
      const sentAt = Date.now();
      await sender.send('wake-local', { n });
      await until(() => started.has(n), Boolean, 5_000);
      measured.push(started.get(n)! - sentAt);
    }
    // Without the wake-up, a job waits up to the 2 s polling interval; with it, well under a second.
    expect(Math.max(...measured), `latencies ${measured.join(', ')} ms`).toBeLessThan(1_000);
  });

  it('a worker with pollingIntervalSeconds 0.5 takes a job sent by another instance within a second', async () => {
    const started = new Map<number, number>();
    await other.work<{ n: number }>(
      'from-elsewhere',
      ({ n }) => {
        started.set(n, Date.now());
        return Promise.resolve();
      },
      { pollingIntervalSeconds: 0.5 },
    );
    const measured: number[] = [];
    for (let n = 0; n < 5; n++) {
      await sleep(300);
      const sentAt = Date.now();
      await sender.send('from-elsewhere', { n });
      await until(() => started.has(n), Boolean, 5_000);
      measured.push(started.get(n)! - sentAt);
    }
    expect(Math.max(...measured), `latencies ${measured.join(', ')} ms`).toBeLessThan(1_000);
  });
});
