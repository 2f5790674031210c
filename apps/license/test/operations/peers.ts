import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { buildTestApp, migrationsFolder, type TestApp, type TestAppOptions } from '../helpers.js';
import {
  eventually,
  startHttpRecorder,
  startSmtpStandIn,
  startTelegramStandIn,
  startTwilioStandIn,
} from '@app/events/testing';

export {
  eventually,
  startHttpRecorder,
  startSmtpStandIn,
  type HttpRecorder,
  type RecordedRequest,
  type SmtpStandIn,
} from '@app/events/testing';

/** The outside services the operations talk to: a webhook receiver, Twilio, Telegram and SMTP. */
export async function startOutsidePeers() {
  const [receiver, twilioApi, telegramApi, smtp] = await Promise.all([
    startHttpRecorder(),
    startTwilioStandIn(),
    startTelegramStandIn(),
    startSmtpStandIn(),
  ]);
  return {
    receiver,
    twilioApi,
    telegramApi,
    smtp,
    close: async () => {
      await Promise.all([receiver.close(), twilioApi.close(), telegramApi.close(), smtp.close()]);
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The test app with a real job queue (pg-boss) on its database, as `npm start` runs it. */
export async function buildAppWithQueue(
  env: Record<string, string>,
  database?: Database,
  options: Omit<TestAppOptions, 'env' | 'jobs' | 'database'> = {},
): Promise<{ t: TestApp; queue: JobQueue; database: Database; close(): Promise<void> }> {
  const db = database ?? (await createTestDatabase(migrationsFolder));
  const queue = await createJobQueue({
    pool: db.pool,
    logger: createLogger({ level: 'silent' }),
    pollingIntervalSeconds: 0.5,
    cronMonitorIntervalSeconds: 1,
    cronWorkerIntervalSeconds: 1,
  });
  const t = await buildTestApp({ ...options, env, jobs: queue, database: db });
  return {
    t,
    queue,
    database: db,
    async close() {
      await t.close();
      await queue.stop();
      if (!database) await db.close();
    },
  };
}

/**
 * Waits until pg-boss has no job of the named queue waiting, running or due for a retry.
 * `name` is a LIKE pattern: `license-%` waits for every scheduled scan.
 */
export async function drainJobs(database: Database, name: string): Promise<void> {
  await eventually(async () => {
    const { rows } = await database.pool.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name LIKE $1 AND state IN ('created', 'active', 'retry')`,
      [name],
    );
    return rows[0].n === 0;
  });
}
