import { randomUUID } from 'node:crypto';
import type { StoredDelivery, WebhookDeliveryStore } from './delivery-store.js';
import { WEBHOOK_URL_NOT_ALLOWED, WebhookUrlNotAllowedError, type WebhookLookup } from './outgoing-url.js';
import { webhookRetrySchedule, type RetrySchedule } from './retry-schedule.js';
import { signWebhookPayload, WEBHOOK_SIGNATURE_HEADER } from './signature.js';
import { createWebhookTransport, type WebhookTransport } from './webhook-transport.js';

/** Header carrying the delivery's id, the same on every attempt, so receivers can drop duplicates. */
export const WEBHOOK_ID_HEADER = 'X-Webhook-Id';
/** What a delivery records for any network failure (refused, reset, timed out, DNS): nothing of ports. */
export const CONNECTION_FAILED = 'connection failed';

export interface WebhookSettings {
  /** Where events go; no URL means webhooks are off. */
  url?: string;
  /** Enabled event names; empty means every event. */
  events: string[];
  timeoutMs: number;
  /** Retries after the first attempt; raised to what spans 24 hours (see `webhookRetrySchedule`). */
  retries: number;
  secret?: string;
}

export interface WebhookDispatcherOptions {
  store: WebhookDeliveryStore;
  /** Read at every emit and attempt, so settings changed at run time apply. */
  settings: () => WebhookSettings;
  /** WEBHOOK_ALLOW_PRIVATE: let deliveries reach loopback, private and link-local addresses. */
  allowPrivate: boolean;
  logger?: { warn(obj: object, msg?: string): void; error?(obj: object, msg?: string): void };
  now?: () => Date;
  /** HTTP out; by default node's client behind the outgoing-address guard. */
  transport?: WebhookTransport;
  /** DNS for the default transport (tests make a name resolve to loopback). */
  lookup?: WebhookLookup;
  /** Attempts in flight at once in this instance (WEBHOOK_CONCURRENCY). Default 16. */
  concurrency?: number;
  /** Retry delays; by default `webhookRetrySchedule(settings().retries)`. Tests compress it. */
  schedule?: RetrySchedule;
  /** How often an idle instance looks for due retries and other instances' deliveries. Default 1000. */
  pollIntervalMs?: number;
  /**
   * How often an endpoint that only has deliveries waiting for a later retry is asked, with one of
   * them, whether it is back (`claimProbes`). Default 60,000: a returned endpoint gets its backlog
   * within a minute even when no new event is sent to it. A probe is not an attempt.
   */
  probeEveryMs?: number;
}

export interface WebhookDispatcher {
  /** Starts the workers; deliveries stored earlier (even by a stopped process) are sent. */
  start(): void;
  /** Claims nothing more and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** Queues `event` for the configured URL when it is enabled; the delivery id, or null when not sent. */
  emit(event: string, data: object): Promise<string | null>;
  /**
   * Queues `event` for a given URL regardless of the enabled list (automated `webhook` actions,
   * and each stored endpoint the app fans an event out to, named by `endpointId`).
   */
  emitTo(url: string, event: string, data: object, target?: { endpointId?: string }): Promise<string>;
  /** Looks for due deliveries now (after one was made due outside, e.g. a redelivery). */
  wake(): void;
  /**
   * Does now what the timers do (probes the waiting endpoints, claims the due deliveries) and
   * resolves once every attempt it started is recorded: tests on a controlled clock call it
   * after moving the clock instead of waiting for the timers.
   */
  runDue(): Promise<void>;
}

export function isWebhookEventEnabled(settings: WebhookSettings, event: string): boolean {
  return settings.events.length === 0 || settings.events.includes(event);
}

/** A success to an endpoint releases its waiting retries; without a recent failure seen here, at most this often. */
const releaseEveryMs = 5000;

/**
 * Delivers webhooks from the store: up to `concurrency` attempts at once, claiming more as soon
 * as a slot frees (no pause while work is due), fresh deliveries before retries. A failed attempt
 * is retried on the schedule; after the last retry, or at once when the address is not allowed,
 * the delivery is kept as failed (listed and redeliverable). The first success to an endpoint
 * makes its waiting retries due, so an endpoint that comes back gets its backlog right away; an
 * endpoint whose retries are all far off is probed once a period with one of its deliveries,
 * which uses up no attempt.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const concurrency = options.concurrency ?? 16;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const probeEveryMs = options.probeEveryMs ?? 60_000;
  const ownTransport = options.transport
    ? undefined
    : createWebhookTransport({ allowPrivate: options.allowPrivate, lookup: options.lookup, maxSockets: concurrency });
  const transport = options.transport ?? ownTransport!;
  const schedule = () => options.schedule ?? webhookRetrySchedule(options.settings().retries);

  let running = false;
  let pumping: Promise<void> | undefined;
  /** Set by every wake; the claim loop runs until no wake came during its last claim. */
  let wanted = false;
  let poller: NodeJS.Timeout | undefined;
  let prober: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();
  const failedSinceRelease = new Set<string>();
  const lastRelease = new Map<string, number>();

  async function enqueue(url: string, event: string, data: object, target?: { endpointId?: string }): Promise<string> {
    const id = randomUUID();
    const createdAt = now();
    const payload = JSON.stringify({ event, timestamp: createdAt.toISOString(), data });
    await store.insert({
      id,
      url,
      event,
      payload,
      createdAt,
      ...(target?.endpointId ? { endpointId: target.endpointId } : {}),
    });
    wake();
    return id;
  }

  /** Claims due deliveries now; a wake that arrives while claiming makes the claim loop run again. */
  function wake(): void {
    if (!running) return;
    wanted = true;
    if (pumping) return;
    pumping = pump().finally(() => {
      pumping = undefined;
      if (wanted) wake();
    });
  }

  /** Until when an attempt starting at `at` holds its delivery: its timeout and a margin. */
  const leaseFrom = (at: Date) => new Date(at.getTime() + options.settings().timeoutMs + 30_000);

  function startAttempt(delivery: StoredDelivery): void {
    const attempt = attemptDelivery(delivery)
      .catch((error: unknown) => {
        options.logger?.error?.({ err: error, webhookId: delivery.id }, 'webhook delivery could not be recorded');
      })
      .finally(() => {
        inFlight.delete(attempt);
        wake();
      });
    inFlight.add(attempt);
  }

  async function pump(): Promise<void> {
    try {
      while (wanted && running) {
        wanted = false;
        while (running && inFlight.size < concurrency) {
          const at = now();
          const claimed = await store.claimDue(at, concurrency - inFlight.size, leaseFrom(at));
          claimed.forEach(startAttempt);
          if (claimed.length === 0) break;
        }
      }
    } catch (error) {
      wanted = false;
      options.logger?.error?.({ err: error }, 'claiming webhook deliveries failed');
    }
  }

  async function attemptDelivery(delivery: StoredDelivery): Promise<void> {
    const { timeoutMs } = options.settings();
    // An endpoint's own secret (or none), else the settings' (WEBHOOK_SECRET).
    const secret = delivery.secret === undefined ? options.settings().secret : delivery.secret;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'license-service-webhooks',
      [WEBHOOK_ID_HEADER]: delivery.id,
      'X-Webhook-Event': delivery.event,
    };
    // Signed at send time: `t` is the moment of this attempt, the body is the one fixed at enqueue.
    if (secret)
      headers[WEBHOOK_SIGNATURE_HEADER] = signWebhookPayload(
        secret,
        delivery.payload,
        Math.floor(now().getTime() / 1000),
      );

    let responseCode: number | null = null;
    let error: string;
    // Why a connection failed (refused, reset, timed out, DNS), for the operator's log only.
    let networkError: string | undefined;
    let retry = true;
    try {
      const response = await transport({ url: delivery.url, headers, body: delivery.payload, timeoutMs });
      responseCode = response.status;
      if (response.status >= 200 && response.status < 300) {
        await store.markDelivered({
          id: delivery.id,
          attempt: delivery.attempts,
          at: now(),
          responseCode,
          error: null,
          probe: delivery.probe,
        });
        await releaseBacklog(delivery);
        return;
      }
      error =
        response.status >= 300 && response.status < 400
          ? `Receiver answered ${response.status}; redirects are not followed`
          : `Receiver answered ${response.status}`;
    } catch (thrown) {
      if (thrown instanceof WebhookUrlNotAllowedError) {
        retry = false;
        error = `${WEBHOOK_URL_NOT_ALLOWED}: ${thrown.reason}`;
      } else {
        // One text for every network failure: refused, reset or timed out would tell whoever sets
        // the URL which ports are open where.
        error = CONNECTION_FAILED;
        networkError = (thrown as Error).message || String(thrown);
      }
    }
    failedSinceRelease.add(delivery.url);
    if (delivery.probe && retry) {
      // Still down: the delivery keeps its attempts and its place in the schedule.
      await store.markProbeFailed({ id: delivery.id, attempt: delivery.attempts, at: now(), responseCode, error });
      return;
    }
    const delays = schedule().delaysMs;
    const delay = retry ? delays[delivery.attempts - 1] : undefined;
    const at = now();
    const nextRetryAt = delay === undefined ? null : new Date(at.getTime() + delay);
    options.logger?.warn(
      {
        webhookId: delivery.id,
        event: delivery.event,
        url: delivery.url,
        attempts: delivery.attempts,
        responseCode,
        error,
        ...(networkError ? { networkError } : {}),
        nextRetryAt,
      },
      nextRetryAt ? 'webhook delivery failed; will retry' : 'webhook delivery failed for good; kept as failed',
    );
    await store.markFailed({ id: delivery.id, attempt: delivery.attempts, at, responseCode, error, nextRetryAt });
    // A retry due before the next poll is claimed on time (compressed schedules in tests).
    if (delay !== undefined && delay < pollIntervalMs) setTimeout(wake, delay).unref();
  }

  /** The endpoint answered: its deliveries waiting for a retry are due now. */
  async function releaseBacklog(delivery: StoredDelivery): Promise<void> {
    const { url } = delivery;
    const recent = Date.now() - (lastRelease.get(url) ?? 0) < releaseEveryMs;
    if (recent && delivery.attempts === 1 && !failedSinceRelease.has(url)) return;
    failedSinceRelease.delete(url);
    lastRelease.set(url, Date.now());
    if (lastRelease.size > 10_000) lastRelease.clear();
    if (await store.releaseEndpoint(url, now())) wake();
  }

  async function probe(): Promise<void> {
    try {
      if (!running) return;
      const at = now();
      (await store.claimProbes(at, probeEveryMs, leaseFrom(at))).forEach(startAttempt);
    } catch (error) {
      options.logger?.error?.({ err: error }, 'probing waiting webhook endpoints failed');
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      poller = setInterval(wake, pollIntervalMs);
      poller.unref();
      prober = setInterval(() => void probe(), probeEveryMs);
      prober.unref();
      wake();
    },
    async stop() {
      running = false;
      clearInterval(poller);
      clearInterval(prober);
      await pumping;
      while (inFlight.size) await Promise.allSettled([...inFlight]);
      ownTransport?.close();
    },
    async emit(event, data) {
      const settings = options.settings();
      if (!settings.url || !isWebhookEventEnabled(settings, event)) return null;
      return enqueue(settings.url, event, data);
    },
    emitTo: enqueue,
    wake,
    async runDue() {
      await probe();
      wake();
      while (pumping || inFlight.size) {
        await pumping;
        await Promise.allSettled([...inFlight]);
      }
    },
  };
}
