import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from '@app/http';

export interface JobQueueOptions {
  /** The app's pool: the jobs live in the app's own database (schema `schema`). */
  pool: pg.Pool;
  logger: Logger;
  /** PostgreSQL schema of pg-boss's tables. Default 'pgboss'. */
  schema?: string;
  /** How often an idle worker looks for new jobs (pg-boss allows 0.5 and up). Default 2. */
  pollingIntervalSeconds?: number;
  /** How often the schedules are checked (1–45). Default 30. Tests lower it. */
  cronMonitorIntervalSeconds?: number;
  /** How often a due scheduled run is turned into a job (1–45). Default 5. */
  cronWorkerIntervalSeconds?: number;
  /** How long `stop()` waits for running jobs before failing them (they are retried later). Default 10000. */
  stopTimeoutMs?: number;
}

export interface WorkOptions {
  /**
   * How often this queue's idle worker looks for jobs sent by other instances (0.5 and up;
   * default the queue's `pollingIntervalSeconds`). Jobs sent by this instance wake its worker at once.
   */
  pollingIntervalSeconds?: number;
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
}

export interface SendOptions {
  retryLimit?: number;
  /** Seconds before a failed job is tried again. */
  retryDelay?: number;
  retryBackoff?: boolean;
  startAfterSeconds?: number;
  /**
   * With `singletonSeconds`: at most one job per key in each time slot of that many seconds
   * (`send` answers null for the duplicate). Alone it only labels the job (pg-boss's standard
   * queue policy).
   */
  singletonKey?: string;
  singletonSeconds?: number;
}

/** The part of the job queue that notifications and automation triggers use (an in-process stand-in fits it too). */
export interface WorkQueue {
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  work<T>(name: string, handler: (data: T) => Promise<void>, options?: WorkOptions): Promise<void>;
}

export interface JobQueue {
  /** Handles the jobs of queue `name`; the options become the queue's retry defaults. */
  work<T>(name: string, handler: (data: T) => Promise<void>, options?: WorkOptions): Promise<void>;
  /** Enqueues a job; answers its id, or null when a singleton rule dropped it. */
  send<T>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** Runs `handler` on the cron (UTC), once per due time across every instance. */
  schedule(name: string, cron: string, handler: () => Promise<void>): Promise<void>;
  /** Enqueues a run of a scheduled job now (e.g. at start-up). Jobs must be idempotent. */
  runNow(name: string): Promise<void>;
  /** Stops fetching, lets running jobs finish (up to stopTimeoutMs), waits for pg-boss's last queries. */
  stop(): Promise<void>;
}

const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/**
 * pg-boss 10 on the app's own pool through its `db` option: no second pool, and it works on the
 * embedded database, whose pool has a single connection. pg-boss sends each operation as one
 * statement (or one multi-statement transaction), never holding a client between queries, so
 * it cannot deadlock that connection.
 */
export async function createJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const { pool, logger } = options;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  let stopping = false;
  let closed = false;
  let stopped: Promise<void> | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const running = new Set<Promise<unknown>>();
  /** This instance's worker ids per queue, woken when this instance sends to the queue. */
  const workers = new Map<string, string[]>();

  const db = {
    async executeSql(text: string, values?: unknown[]) {
      // Once stopped, never touch the pool again (the app closes it right after): a late
      // pg-boss query (e.g. completing a job that outlived stopTimeoutMs) just never answers,
      // where a closed pool's error would surface as an unhandled rejection. The job is failed
      // by then and will be retried.
      if (closed) return new Promise<never>(() => {});
      // Once stopping, claim no new jobs: pg-boss's fetch is its only SKIP LOCKED query.
      if (stopping && text.includes('SKIP LOCKED')) return { rows: [] };
      const query = pool.query(text, values);
      inFlight.add(query);
      try {
        return await query;
      } finally {
        inFlight.delete(query);
      }
    },
  };

  const boss = new PgBoss(
    withoutUndefined({
      db,
      schema: options.schema ?? 'pgboss',
      pollingIntervalSeconds: options.pollingIntervalSeconds,
      cronMonitorIntervalSeconds: options.cronMonitorIntervalSeconds,
      cronWorkerIntervalSeconds: options.cronWorkerIntervalSeconds,
    }),
  );
  boss.on('error', (error) => logger.error({ err: error }, 'job queue error'));
  await boss.start();

  // pg-boss 10 needs a queue before send, work or schedule; creating one is idempotent.
  // Each creation attaches a partition and adds a foreign key to pg-boss's queue table, so two
  // concurrent creations can deadlock on PostgreSQL: this instance creates one at a time, and a
  // deadlock with another instance is retried (the database aborted only one side).
  const queues = new Map<string, Promise<void>>();
  let creating: Promise<unknown> = Promise.resolve();
  const createQueue = async (name: string): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await boss.createQueue(name);
      } catch (error) {
        if ((error as { code?: string }).code !== '40P01' || attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, attempt * (10 + Math.random() * 40)));
      }
    }
  };
  const ensureQueue = (name: string): Promise<void> => {
    if (stopping) return Promise.reject(new Error(`job queue is stopped (queue ${name})`));
    let created = queues.get(name);
    if (!created) {
      created = creating.then(() => createQueue(name));
      creating = created.catch(() => {});
      created.catch(() => queues.delete(name));
      queues.set(name, created);
    }
    return created;
  };

  const work = async <T>(name: string, handler: (data: T) => Promise<void>, workOptions: WorkOptions = {}) => {
    await ensureQueue(name);
    const retry = withoutUndefined({
      retryLimit: workOptions.retryLimit,
      retryDelay: workOptions.retryDelaySeconds,
      retryBackoff: workOptions.retryBackoff,
    });
    if (Object.keys(retry).length) await boss.updateQueue(name, { name, ...retry });
    const polling = withoutUndefined({ pollingIntervalSeconds: workOptions.pollingIntervalSeconds });
    const workerId = await boss.work<T>(name, { includeMetadata: true, ...polling }, async (jobs) => {
      for (const job of jobs) {
        const run = handler(job.data);
        running.add(run);
        try {
          await run;
        } catch (error) {
          logger.warn({ err: error, queue: name, jobId: job.id, retryCount: job.retryCount }, 'job failed');
          throw error; // pg-boss marks it failed and retries it as configured
        } finally {
          running.delete(run);
        }
      }
    });
    workers.set(name, [...(workers.get(name) ?? []), workerId]);
  };

  const send = async <T>(name: string, data: T, sendOptions: SendOptions = {}): Promise<string | null> => {
    await ensureQueue(name);
    const id = await boss.send(
      name,
      data as object,
      withoutUndefined({
        retryLimit: sendOptions.retryLimit,
        retryDelay: sendOptions.retryDelay,
        retryBackoff: sendOptions.retryBackoff,
        startAfter: sendOptions.startAfterSeconds,
        singletonKey: sendOptions.singletonKey,
        singletonSeconds: sendOptions.singletonSeconds,
      }),
    );
    // A job due now is fetched by this instance's worker at once instead of at its next poll.
    if (id && !sendOptions.startAfterSeconds)
      for (const workerId of workers.get(name) ?? []) boss.notifyWorker(workerId);
    return id;
  };

  return {
    work,
    send,

    async schedule(name, cron, handler) {
      await ensureQueue(name);
      // One schedule row per name, shared by every instance; pg-boss's cron takes a
      // database-wide turn and deduplicates each due time, so one job is made per due time.
      await boss.schedule(name, cron, {}, { tz: 'UTC' });
      await work(name, () => handler());
    },

    async runNow(name) {
      await send(name, {});
    },

    stop() {
      stopped ??= stopGracefully();
      return stopped;
    },
  };

  async function stopGracefully(): Promise<void> {
    stopping = true;
    const deadline = Date.now() + stopTimeoutMs;
    // Waits for running jobs up to the timeout, then fails those still running (retried later).
    await boss.stop({ graceful: true, wait: true, timeout: stopTimeoutMs });
    // pg-boss resolves before its last queries (e.g. marking a finished job complete) settle.
    while ((inFlight.size || running.size) && Date.now() < deadline) {
      await Promise.race([
        Promise.allSettled([...inFlight, ...running]),
        new Promise((resolve) => setTimeout(resolve, 50)),
      ]);
    }
    closed = true;
  }
}
