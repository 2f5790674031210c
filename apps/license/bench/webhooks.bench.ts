/**
 * `npx tsx apps/license/bench/webhooks.bench.ts`: webhook delivery throughput of one instance
 * (the license app with its job queue, as `npm start` runs it) to a real local receiver.
 *
 * 1. BENCH_EVENTS (default 500) events to a receiver that is up: deliveries per second.
 * 2. The receiver answers 503 while BENCH_EVENTS events are emitted and for BENCH_DOWN_SECONDS
 *    (default 15) more; then it is back, one fresh event is emitted, and the bench measures how
 *    long the backlog and the fresh event take to arrive.
 *
 * The database is a fresh one from @app/db/testing: PGlite, or PostgreSQL with TEST_DATABASE_URL.
 */
import path from 'node:path';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createJobQueue } from '@app/events';
import { startHttpRecorder } from '@app/events/testing';
import { createLogger } from '@app/http';
import { buildTestApp } from '../test/helpers.js';

const events = Number(process.env.BENCH_EVENTS ?? 500);
const downSeconds = Number(process.env.BENCH_DOWN_SECONDS ?? 15);
const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  let up = true;
  const delivered = new Map<string, number>();
  const receiver = await startHttpRecorder((request, _index, res) => {
    if (!up) {
      res.writeHead(503).end('down');
      return;
    }
    const id = String(request.headers['x-webhook-id']);
    if (!delivered.has(id)) delivered.set(id, Date.now());
    res.writeHead(204).end();
  });
  const database = await createTestDatabase(migrationsFolder);
  const logger = createLogger({ level: 'silent' });
  const queue = await createJobQueue({ pool: database.pool, logger });
  const t = await buildTestApp({
    database,
    jobs: queue,
    env: {
      WEBHOOK_URL: `${receiver.url}/hooks`,
      WEBHOOK_SECRET: 'bench',
      WEBHOOK_RETRIES: '100',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  });
  const emit = (n: number, tag: string) =>
    Promise.all(
      Array.from({ length: n }, (_, i) => t.context.events.emit('LICENSE_CREATED', { licenseKey: `${tag}-${i}` })),
    );
  const waitFor = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (delivered.size < count && Date.now() < deadline) await sleep(50);
    return delivered.size >= count;
  };

  try {
    console.log(`backend: ${testDatabaseBackend()}, events: ${events}`);
    let started = Date.now();
    await emit(events, 'up');
    const emittedIn = Date.now() - started;
    const ok = await waitFor(events, 600_000);
    const upSeconds = (Date.now() - started) / 1000;
    console.log(
      `receiver up: ${delivered.size}/${events} delivered in ${upSeconds.toFixed(1)} s (emitting took ${emittedIn} ms): ${(delivered.size / upSeconds).toFixed(1)} deliveries/s${ok ? '' : ' (gave up)'}`,
    );

    up = false;
    const before = delivered.size;
    await emit(events, 'down');
    await sleep(downSeconds * 1000);
    const attemptsWhileDown = receiver.requests.length - before;
    up = true;
    started = Date.now();
    await t.context.events.emit('LICENSE_CREATED', { licenseKey: 'fresh' });
    const fresh = () => {
      const request = receiver.requests.find(
        (r) => r.body.includes('"fresh"') && delivered.has(String(r.headers['x-webhook-id'])),
      );
      return request ? delivered.get(String(request.headers['x-webhook-id']))! - started : undefined;
    };
    const all = await waitFor(before + events + 1, 600_000);
    const backlogSeconds = (Date.now() - started) / 1000;
    console.log(
      `receiver down ${downSeconds} s (${attemptsWhileDown} failed attempts), then up: ${delivered.size - before}/${events + 1} delivered in ${backlogSeconds.toFixed(1)} s after its return: ${((delivered.size - before) / backlogSeconds).toFixed(1)} deliveries/s; the fresh event arrived after ${fresh()} ms${all ? '' : ' (gave up)'}`,
    );
  } finally {
    await t.close();
    await queue.stop();
    await database.close();
    await receiver.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
