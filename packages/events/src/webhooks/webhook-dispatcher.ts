import { randomUUID } from 'node:crypto';
import { signWebhookPayload, WEBHOOK_SIGNATURE_HEADER } from './signature.js';

/** What the dispatcher needs of the job queue (structurally the `JobQueue` of this package). */
export interface WebhookQueue {
  send<T extends object>(name: string, data: T, options?: { retryLimit?: number; retryDelay?: number; retryBackoff?: boolean; singletonKey?: string; singletonSeconds?: number }): Promise<string | null>;
  work<T>(name: string, handler: (data: T) => Promise<void>): Promise<void>;
}

export interface WebhookSettings {
  /** Where events go; no URL means webhooks are off. */
  url?: string;
  /** Enabled event names; empty means every event. */
  events: string[];
  timeoutMs: number;
  /** Attempts after the first one. */
  retries: number;
  secret?: string;
}

/** One delivery as stored in the queue: the body is fixed here, so every retry sends the same bytes. */
export interface WebhookJob {
  id: string;
  url: string;
  event: string;
  body: string;
  timeoutMs: number;
}

export interface WebhookDispatcherOptions {
  queue: WebhookQueue;
  /** Read at every emit and delivery, so settings changed at run time apply. */
  settings: () => WebhookSettings;
  logger?: { warn(obj: object, msg?: string): void; info?(obj: object, msg?: string): void };
  now?: () => Date;
  fetch?: typeof fetch;
  /** Queue name (default 'webhook-delivery'). */
  queueName?: string;
  /** First retry delay in seconds; later ones grow exponentially (default 1). */
  retryDelaySeconds?: number;
}

export interface WebhookDispatcher {
  /** Registers the delivery worker; deliveries queued earlier (even by a stopped process) are sent. */
  start(): Promise<void>;
  /** Queues `event` for the configured URL when it is enabled; the job id, or null when not sent. */
  emit(event: string, data: object): Promise<string | null>;
  /** Queues `event` for a given URL regardless of the enabled list (automated `webhook` actions). */
  emitTo(url: string, event: string, data: object): Promise<string | null>;
  /** One delivery attempt; throws when the receiver does not answer 2xx in time. */
  deliver(job: WebhookJob): Promise<void>;
}

export function isWebhookEventEnabled(settings: WebhookSettings, event: string): boolean {
  return settings.events.length === 0 || settings.events.includes(event);
}

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const queueName = options.queueName ?? 'webhook-delivery';
  const now = options.now ?? (() => new Date());
  const doFetch = options.fetch ?? fetch;

  async function enqueue(url: string, event: string, data: object): Promise<string | null> {
    const settings = options.settings();
    const job: WebhookJob = {
      id: randomUUID(),
      url,
      event,
      body: JSON.stringify({ event, timestamp: now().toISOString(), data }),
      timeoutMs: settings.timeoutMs,
    };
    return options.queue.send(queueName, job, {
      retryLimit: settings.retries,
      retryDelay: options.retryDelaySeconds ?? 1,
      retryBackoff: true,
    });
  }

  async function deliver(job: WebhookJob): Promise<void> {
    const { secret } = options.settings();
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'license-service-webhooks',
      'X-Webhook-Id': job.id,
      'X-Webhook-Event': job.event,
    };
    // Signed at send time: `t` is the moment of this attempt, the body is the one fixed at enqueue.
    if (secret) headers[WEBHOOK_SIGNATURE_HEADER] = signWebhookPayload(secret, job.body, Math.floor(now().getTime() / 1000));
    let response: Response;
    try {
      response = await doFetch(job.url, { method: 'POST', headers, body: job.body, signal: AbortSignal.timeout(job.timeoutMs), redirect: 'manual' });
    } catch (error) {
      options.logger?.warn({ webhookId: job.id, event: job.event, url: job.url, err: error }, 'webhook delivery failed');
      throw new Error(`Webhook delivery to ${job.url} failed: ${(error as Error).message}`);
    }
    await response.body?.cancel().catch(() => {});
    if (response.status < 200 || response.status >= 300) {
      options.logger?.warn({ webhookId: job.id, event: job.event, url: job.url, status: response.status }, 'webhook receiver refused');
      throw new Error(`Webhook receiver ${job.url} answered ${response.status}`);
    }
  }

  return {
    start: () => options.queue.work<WebhookJob>(queueName, deliver),
    async emit(event, data) {
      const settings = options.settings();
      if (!settings.url || !isWebhookEventEnabled(settings, event)) return null;
      return enqueue(settings.url, event, data);
    },
    emitTo: enqueue,
    deliver,
  };
}
