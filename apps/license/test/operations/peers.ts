import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { buildTestApp, migrationsFolder, type TestApp } from '../helpers.js';

import { eventually } from '@app/events/testing';

export { eventually, startHttpRecorder, type HttpRecorder, type RecordedRequest } from '@app/events/testing';

/** A real local SMTP server that keeps every message it accepts. */
export async function startSmtpServer() {
  const mails: Array<{ to: string[]; raw: string }> = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'], authOptional: true,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => { raw += chunk.toString('utf8'); });
      stream.on('end', () => { mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw }); callback(); });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}


export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The test app with a real job queue (pg-boss) on its database, as `npm start` runs it. */
export async function buildAppWithQueue(env: Record<string, string>, database?: Database): Promise<{ t: TestApp; queue: JobQueue; database: Database; close(): Promise<void> }> {
  const db = database ?? await createTestDatabase(migrationsFolder);
  const queue = await createJobQueue({ pool: db.pool, logger: createLogger({ level: 'silent' }), pollingIntervalSeconds: 0.5, cronMonitorIntervalSeconds: 1, cronWorkerIntervalSeconds: 1 });
  const t = await buildTestApp({ env, jobs: queue, database: db });
  return {
    t, queue, database: db,
    async close() {
      await t.close();
      await queue.stop();
      if (!database) await db.close();
    },
  };
}

/** Waits until pg-boss has no job of the named queue waiting, running or due for a retry. */
export async function drainJobs(database: Database, name: string): Promise<void> {
  await eventually(async () => {
    const { rows } = await database.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'active', 'retry')`, [name]);
    return rows[0].n === 0;
  });
}
