import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { createJobQueue, type JobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { buildTestApp, migrationsFolder, type TestApp } from '../helpers.js';

export interface RecordedRequest { method: string; path: string; headers: IncomingHttpHeaders; body: string }

/** A real local HTTP server (webhook receiver, or a stand-in for the Twilio or Telegram API) that records requests. */
export async function startHttpRecorder(respond?: (request: RecordedRequest, index: number, res: ServerResponse) => void) {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      if (respond) respond(request, requests.length - 1, res);
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Parsed JSON bodies of the requests for one webhook event. */
    events: (event: string) => requests.map((request) => JSON.parse(request.body)).filter((body) => body.event === event),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
export type HttpRecorder = Awaited<ReturnType<typeof startHttpRecorder>>;

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

/** Polls until `check` answers truthy. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 20_000, intervalMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
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
