import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { checkOutgoingUrl, createWebhookDispatcher, type Notifier, type WebhookDispatcher, type WorkQueue } from '@app/events';
import type { Logger } from '@app/http';
import type { AppContext } from '../app.js';
import type { EventBus, LicenseEventName } from '../events/event-bus.js';
import { createLicenseNotifier, subscribeNotifications } from '../notifications/notifications.service.js';
import { jobsService, scheduleJobs, type JobsService } from '../jobs/jobs.service.js';
import { stripeService } from '../stripe/stripe.service.js';
import { stripeRoutes } from '../stripe/stripe.routes.js';
import { webhookDeliveryStore } from '../webhooks/webhook-deliveries.repository.js';
import { webhookRoutes } from '../webhooks/webhooks.routes.js';
import { assertWebhookUrlAllowed, subscribeWebhooks, webhooksService, webhookSettings } from '../webhooks/webhooks.service.js';
import { createAutomationEngine, type AutomationEngine } from './automation-engine.js';
import { automationRoutes } from './automations.routes.js';
import { automationsService } from './automations.service.js';
import type { TriggerEvent } from './automations.schema.js';
import { coreLicenseOperations } from './license-operations.js';

type OperationsContext = Pick<AppContext, 'config' | 'pool' | 'logger' | 'now' | 'events' | 'jobs' | 'webhookDelivery' | 'requireAdmin' | 'panicGuard' | 'services'>;

export interface Operations {
  /** Routers that need the raw body (POST /api/stripe): mount before the JSON parser. */
  rawBodyRouters: Router[];
  routers: Router[];
  webhooks: WebhookDispatcher;
  notifier: Notifier;
  engine: AutomationEngine;
  jobs: JobsService;
  /** Stops the webhook workers (waits for the attempts in flight). */
  close(): Promise<void>;
}

/**
 * Without a job queue (some tests) notifications and triggers run once, in this process, right
 * away. Every real start passes the queue, which stores them and retries. (Webhook deliveries
 * never need it: they are stored in their own table.)
 */
function inProcessQueue(logger: Pick<Logger, 'warn'>): WorkQueue {
  const handlers = new Map<string, (data: unknown) => Promise<void>>();
  return {
    async send(name, data) {
      const handler = handlers.get(name);
      if (handler) setImmediate(() => { handler(data).catch((error: unknown) => logger.warn({ err: error, queue: name }, 'job failed')); });
      return randomUUID();
    },
    async work(name, handler) {
      handlers.set(name, handler as (data: unknown) => Promise<void>);
    },
  };
}

interface TriggerJob { triggerId: string; event: TriggerEvent; context: Record<string, unknown>; depth: number }
const triggerQueue = 'automation-trigger';

/**
 * Wires the bus to the triggers of automated actions through the job queue: a trigger is stored
 * with the event that caused it, so it survives a crash or a stop, and a retried one skips the
 * actions it already ran.
 */
async function subscribeAutomations(bus: EventBus, engine: AutomationEngine, queue: WorkQueue) {
  const enqueue = async (event: TriggerEvent, context: Record<string, unknown>) => {
    if (!(await engine.hasActionsFor(event))) return;
    await queue.send<TriggerJob>(triggerQueue, { triggerId: randomUUID(), event, context, depth: engine.currentDepth() },
      { retryLimit: 3, retryDelay: 5, retryBackoff: true });
  };
  const bridges: Array<[LicenseEventName, TriggerEvent]> = [
    ['LICENSE_CREATED', 'license_created'], ['LICENSE_REVOKED', 'license_revoked'], ['LICENSE_EXPIRED', 'license_expired'],
    ['NEW_REQUEST_BLOCKED', 'violation_threshold'], ['ANOMALY_DETECTED', 'anomaly_detected'],
  ];
  for (const [name, event] of bridges) {
    bus.on(name, (context) => enqueue(event, context));
  }
  await queue.work<TriggerJob>(triggerQueue, (job) => engine.trigger(job.event, job.context, { depth: job.depth, triggerId: job.triggerId }));
  return { trigger: enqueue };
}

/** Webhooks, notifications, automated actions, the Stripe receiver and the scheduled scans (issue 5). */
export async function setupOperations(ctx: OperationsContext): Promise<Operations> {
  const { config, pool, logger, now, events } = ctx;
  const queue: WorkQueue = ctx.jobs ?? inProcessQueue(logger);

  const outgoing = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, lookup: ctx.webhookDelivery?.lookup };
  const webhooks = createWebhookDispatcher({
    store: webhookDeliveryStore(pool), settings: () => webhookSettings(config), logger, now,
    concurrency: config.WEBHOOK_CONCURRENCY, ...outgoing, ...ctx.webhookDelivery,
  });
  const checkWebhookUrl = (url: string) => assertWebhookUrlAllowed(url, outgoing);
  if (config.WEBHOOK_URL) {
    // Not refused here (the environment is the operator's), but every delivery to it would fail.
    checkOutgoingUrl(config.WEBHOOK_URL, outgoing).catch((error: Error) =>
      logger.warn({ url: config.WEBHOOK_URL, err: error }, 'WEBHOOK_URL is not allowed (see WEBHOOK_ALLOW_PRIVATE): its deliveries will fail'));
  }
  const notifier = createLicenseNotifier(config, queue, logger);
  const engine = createAutomationEngine({
    pool, now, bus: events, notifier, webhooks, logger,
    licenses: coreLicenseOperations({ now, licenses: ctx.services.licenses }),
  });
  const jobs = jobsService({
    pool, now, bus: events, licenses: ctx.services.licenses, notifier, logger,
    settings: {
      expiryWarningDays: config.EXPIRY_WARNING_DAYS, anomalyMaxIps: config.ANOMALY_MAX_IPS,
      anomalyWindowMinutes: config.ANOMALY_WINDOW_MINUTES, anomalyMaxFailures: config.ANOMALY_MAX_FAILURES,
    },
  });

  // Each subscriber only queues work (one INSERT), so the operation that emitted the event is barely
  // delayed; a failing subscriber is logged by the bus and the next one still runs.
  subscribeWebhooks(events, webhooks);
  subscribeNotifications(events, notifier);
  const triggers = await subscribeAutomations(events, engine, queue);

  webhooks.start();
  await notifier.start();
  if (ctx.jobs) await scheduleJobs(ctx.jobs, jobs, logger);

  const stripe = stripeService({ pool, now, webhookSecret: config.STRIPE_WEBHOOK_SECRET, bus: events, licenses: ctx.services.licenses, engine: triggers, notifier, logger });
  return {
    rawBodyRouters: [stripeRoutes({ service: stripe, panicGuard: ctx.panicGuard })],
    routers: [
      automationRoutes({ service: automationsService({ pool, now, engine, checkWebhookUrl }), requireAdmin: ctx.requireAdmin }),
      webhookRoutes({ service: webhooksService({ pool, now, dispatcher: webhooks }), requireAdmin: ctx.requireAdmin }),
    ],
    webhooks, notifier, engine, jobs,
    close: () => webhooks.stop(),
  };
}
