import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createWebhookDispatcher, webhookRetrySchedule, type WebhookDispatcher } from '@app/events';
import { startHttpRecorder, type HttpRecorder } from '@app/events/testing';
import { webhookDeliveryStore } from '../../src/webhooks/webhook-deliveries.repository.js';
import { migrationsFolder } from '../helpers.js';

// The dispatcher and its store on a real database and a real receiver, on a clock the test moves:
// a day of retries takes seconds, and every time below is exact.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const start = new Date('2030-03-01T00:00:00Z');
/** Production's probe period: a waiting endpoint is asked once a minute whether it is back. */
const probeEveryMs = MINUTE;

let database: Database;
let receiver: HttpRecorder;
let down = true;
let clock = start;

beforeAll(async () => {
  database = await createTestDatabase(migrationsFolder);
  receiver = await startHttpRecorder((_request, _index, res) => {
    if (down) res.writeHead(503).end('maintenance');
    else res.writeHead(204).end();
  });
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
});

/** A dispatcher whose timers never fire during the test: it moves only when `runDue` is called. */
function dispatcherOnTheClock(): WebhookDispatcher {
  const dispatcher = createWebhookDispatcher({
    store: webhookDeliveryStore(database.pool),
    settings: () => ({ events: [], timeoutMs: 5000, retries: 0 }),
    allowPrivate: true,
    now: () => clock,
    pollIntervalMs: 24 * HOUR,
    probeEveryMs,
  });
  dispatcher.start();
  return dispatcher;
}

interface DeliveryState {
  status: string;
  attempts: number;
  next_retry_at: Date | null;
}
const stateOf = async (id: string): Promise<DeliveryState> =>
  (
    await database.pool.query<DeliveryState>(
      'SELECT status, attempts, next_retry_at FROM webhook_deliveries WHERE id = $1',
      [id],
    )
  ).rows[0]!;
const requestsFor = (id: string) =>
  receiver.requests.filter((request) => request.headers['x-webhook-id'] === id).length;

describe(`webhook retries while the endpoint is down, on a controlled clock (${testDatabaseBackend()})`, () => {
  it('makes 33 attempts on the schedule, spanning more than 24 hours; the probes in between use up none and move none earlier', async () => {
    down = true;
    clock = start;
    const dispatcher = dispatcherOnTheClock();
    try {
      const id = await dispatcher.emitTo(`${receiver.url}/down-for-good`, 'LICENSE_CREATED', { licenseKey: 'DOWN-1' });
      const attemptTimes: number[] = [];
      let probes = 0;
      let seen = 0;
      for (let step = 0; step < 5000; step += 1) {
        await dispatcher.runDue();
        const state = await stateOf(id);
        const requests = requestsFor(id);
        if (state.attempts > attemptTimes.length) attemptTimes.push(clock.getTime() - start.getTime());
        else if (requests > seen) probes += requests - seen;
        seen = requests;
        if (state.status === 'failed') break;
        // Five minutes on (a probe is due at each step), or to the retry when it comes first.
        clock = new Date(Math.min(clock.getTime() + 5 * MINUTE, state.next_retry_at!.getTime()));
      }

      const expected = [0];
      for (const delay of webhookRetrySchedule().delaysMs) expected.push(expected.at(-1)! + delay);
      const schedule = attemptTimes.map((ms, i) => `${i + 1}: ${formatSpan(ms)}`).join(', ');
      console.log(
        `[${testDatabaseBackend()}] attempt -> time since the first: ${schedule}; ${probes} probes in between`,
      );
      expect(attemptTimes).toEqual(expected);
      expect(attemptTimes).toHaveLength(33);
      expect(attemptTimes.at(-1)!).toBeGreaterThanOrEqual(24 * HOUR);
      // Once the backoff passes a few minutes, a probe at every step; none counted as an attempt.
      expect(probes).toBeGreaterThan(250);
      expect(await stateOf(id)).toMatchObject({ status: 'failed', attempts: 33, next_retry_at: null });

      // Failed for good: neither retried nor probed again.
      const before = receiver.requests.length;
      for (let i = 0; i < 5; i += 1) {
        clock = new Date(clock.getTime() + HOUR);
        await dispatcher.runDue();
      }
      expect(receiver.requests.length).toBe(before);
    } finally {
      await dispatcher.stop();
    }
  }, 120_000);

  it('a returned endpoint with 605 deliveries waiting gets all of them after the next probe, each once, without waiting for the retries', async () => {
    down = true;
    clock = new Date(start.getTime() + 10 * 24 * HOUR);
    const dispatcher = dispatcherOnTheClock();
    const url = `${receiver.url}/comes-back`;
    try {
      const ids = await Promise.all(
        Array.from({ length: 605 }, (_, i) => dispatcher.emitTo(url, 'LICENSE_CREATED', { licenseKey: `BACK-${i}` })),
      );
      await dispatcher.runDue();
      // As a long outage leaves them (the test above follows the schedule itself): seven
      // attempts made, the last one ten minutes ago, the next one ten minutes away.
      await database.pool.query(
        `UPDATE webhook_deliveries SET attempts = 7, last_attempt_at = $2, next_retry_at = $3 WHERE url = $1`,
        [url, new Date(clock.getTime() - 10 * MINUTE), new Date(clock.getTime() + 10 * MINUTE)],
      );
      // Three minutes still down: a probe a minute, each failing.
      for (let minute = 1; minute <= 3; minute += 1) {
        clock = new Date(clock.getTime() + MINUTE);
        await dispatcher.runDue();
      }
      const {
        rows: [waiting],
      } = await database.pool.query(
        `SELECT count(*)::int AS n, min(attempts)::int AS fewest, max(attempts)::int AS most, min(next_retry_at) AS first
         FROM webhook_deliveries WHERE url = $1 AND status = 'pending'`,
        [url],
      );
      expect(waiting).toMatchObject({ n: 605, fewest: 7, most: 7 });
      expect(receiver.requests.filter((request) => request.path === '/comes-back')).toHaveLength(605 + 3);

      down = false;
      clock = new Date(clock.getTime() + MINUTE);
      const returned = performance.now();
      await dispatcher.runDue();
      const seconds = (performance.now() - returned) / 1000;
      const { rows } = await database.pool.query(
        'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE url = $1 GROUP BY status',
        [url],
      );
      console.log(
        `[${testDatabaseBackend()}] 605 waiting deliveries delivered ${seconds.toFixed(1)} s after the first probe that found the endpoint back`,
      );
      expect(rows).toEqual([{ status: 'delivered', n: 605 }]);
      // The first retry was still minutes away: the probe's success released the backlog.
      expect(new Date(waiting.first).getTime()).toBeGreaterThan(clock.getTime());
      const accepted = receiver.requests.slice(-605).map((request) => String(request.headers['x-webhook-id']));
      expect(new Set(accepted)).toEqual(new Set(ids));
    } finally {
      await dispatcher.stop();
    }
  }, 120_000);
});

function formatSpan(ms: number): string {
  const hours = Math.floor(ms / HOUR);
  const minutes = Math.floor((ms % HOUR) / MINUTE);
  const seconds = Math.round((ms % MINUTE) / 1000);
  return hours ? `${hours} h ${minutes} min` : minutes ? `${minutes} min ${seconds} s` : `${seconds} s`;
}
