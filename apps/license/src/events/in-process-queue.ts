import { randomUUID } from 'node:crypto';
import type { WorkQueue } from '@app/events';
import type { Logger } from '@app/http';

/**
 * Without a job queue (some tests) notifications and triggers run once, in this process, right
 * away. Every real start passes the queue, which stores them and retries. (Webhook deliveries
 * never need it: they are stored in their own table.)
 */
export function inProcessQueue(logger: Pick<Logger, 'warn'>): WorkQueue {
  const handlers = new Map<string, (data: unknown) => Promise<void>>();
  return {
    send(name, data) {
      const handler = handlers.get(name);
      if (handler)
        setImmediate(() => {
          handler(data).catch((error: unknown) => logger.warn({ err: error, queue: name }, 'job failed'));
        });
      return Promise.resolve(randomUUID());
    },
    work(name, handler) {
      handlers.set(name, handler as (data: unknown) => Promise<void>);
      return Promise.resolve();
    },
  };
}
