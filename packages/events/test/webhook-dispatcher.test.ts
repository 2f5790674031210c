import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@app/db';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { createJobQueue, createWebhookDispatcher, verifyWebhookSignature, type JobQueue, type WebhookSettings } from '../src/index.js';
import { eventually, startHttpRecorder } from '../src/testing/index.js';

const migrations = path.join(import.meta.dirname, 'fixtures/migrations');
const logger = createLogger({ level: 'silent' });
const secret = 'whsec_test';

describe(`webhook deliveries through the job queue (${testDatabaseBackend()})`, () => {
  let database: Database;
  const queues: JobQueue[] = [];
  const openQueue = async () => {
    const queue = await createJobQueue({ pool: database.pool, logger, pollingIntervalSeconds: 0.5 });
    queues.push(queue);
    return queue;
  };

  beforeAll(async () => {
    database = await createTestDatabase(migrations);
  });
  afterAll(async () => {
    for (const queue of queues) await queue.stop();
    await database?.close();
  });

  it('a receiver down for the first two attempts (500, then a dropped connection) gets the third, same event, valid signature', async () => {
    const receiver = await startHttpRecorder((request, index, res) => {
      if (index === 0) res.writeHead(500).end('down');
      else if (index === 1) res.socket?.destroy();
      else res.writeHead(204).end();
    });
    try {
      const settings: WebhookSettings = { url: `${receiver.url}/hook`, events: [], timeoutMs: 2000, retries: 3, secret };
      const dispatcher = createWebhookDispatcher({ queue: await openQueue(), settings: () => settings, logger, queueName: 'webhooks-retry' });
      await dispatcher.start();
      expect(await dispatcher.emit('LICENSE_CREATED', { licenseKey: 'APP-1', licenseId: 'l1' })).toEqual(expect.any(String));
      await eventually(() => receiver.requests.length >= 3, 25_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests).toHaveLength(3);
      const bodies = receiver.requests.map((request) => request.body);
      expect(new Set(bodies).size).toBe(1);
      expect(new Set(receiver.requests.map((request) => request.headers['x-webhook-id'])).size).toBe(1);
      const payload = JSON.parse(bodies[0]!);
      expect(payload).toEqual({ event: 'LICENSE_CREATED', timestamp: expect.any(String), data: { licenseKey: 'APP-1', licenseId: 'l1' } });
      expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
      const third = receiver.requests[2]!;
      expect(third.headers['content-type']).toBe('application/json');
      expect(third.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyWebhookSignature({ header: String(third.headers['x-webhook-signature']), body: third.body, secret })).toBe(true);
      expect(verifyWebhookSignature({ header: String(third.headers['x-webhook-signature']), body: third.body, secret: 'wrong' })).toBe(false);
    } finally {
      await receiver.close();
    }
  }, 40_000);

  it('a receiver slower than the timeout is retried', async () => {
    const receiver = await startHttpRecorder((_request, index, res) => {
      if (index === 0) setTimeout(() => res.writeHead(200).end(), 1500);
      else res.writeHead(200).end();
    });
    try {
      const settings: WebhookSettings = { url: receiver.url, events: [], timeoutMs: 300, retries: 2, secret };
      const dispatcher = createWebhookDispatcher({ queue: await openQueue(), settings: () => settings, logger, queueName: 'webhooks-timeout' });
      await dispatcher.start();
      await dispatcher.emit('LICENSE_REVOKED', { licenseKey: 'APP-2' });
      await eventually(() => receiver.requests.length >= 2, 20_000);
      expect(receiver.requests[0]!.body).toBe(receiver.requests[1]!.body);
    } finally {
      await receiver.close();
    }
  }, 30_000);

  it('sends only enabled events, and nothing without a URL', async () => {
    const queue = await openQueue();
    const settings: WebhookSettings = { url: 'http://127.0.0.1:9/', events: ['LICENSE_EXPIRED'], timeoutMs: 1000, retries: 0 };
    const dispatcher = createWebhookDispatcher({ queue, settings: () => settings, logger, queueName: 'webhooks-filter' });
    expect(await dispatcher.emit('LICENSE_CREATED', {})).toBeNull();
    expect(await dispatcher.emit('LICENSE_EXPIRED', {})).toEqual(expect.any(String));
    const off = createWebhookDispatcher({ queue, settings: () => ({ ...settings, url: undefined }), logger, queueName: 'webhooks-filter' });
    expect(await off.emit('LICENSE_EXPIRED', {})).toBeNull();
  });

  it('deliveries queued while no worker runs (service stopped) are sent once a new process starts', async () => {
    const receiver = await startHttpRecorder();
    try {
      const settings: WebhookSettings = { url: receiver.url, events: [], timeoutMs: 2000, retries: 3, secret };
      // The first "process" queues but stops before any worker sends.
      const first = await createJobQueue({ pool: database.pool, logger, pollingIntervalSeconds: 0.5 });
      const stopped = createWebhookDispatcher({ queue: first, settings: () => settings, logger, queueName: 'webhooks-restart' });
      await stopped.emit('ANOMALY_DETECTED', { licenseKey: 'APP-3', uniqueIps: 12 });
      await first.stop();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests).toHaveLength(0);
      // The restarted process starts its worker and delivers the stored job.
      const restarted = createWebhookDispatcher({ queue: await openQueue(), settings: () => settings, logger, queueName: 'webhooks-restart' });
      await restarted.start();
      await eventually(() => receiver.requests.length === 1, 20_000);
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ event: 'ANOMALY_DETECTED', data: { licenseKey: 'APP-3', uniqueIps: 12 } });
      expect(verifyWebhookSignature({ header: String(receiver.requests[0]!.headers['x-webhook-signature']), body: receiver.requests[0]!.body, secret })).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 30_000);
});
