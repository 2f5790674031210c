import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { createWebhookDispatcher, type Notifier, type WebhookDispatcher, type WebhookQueue } from '@app/events';
import type { Logger } from '@app/http';
import type { AppContext } from '../app.js';
import type { EventBus } from '../events/event-bus.js';
import { createLicenseNotifier, subscribeNotifications } from '../notifications/notifications.service.js';
import { jobsService, scheduleJobs, type JobsService } from '../jobs/jobs.service.js';
import { stripeService } from '../stripe/stripe.service.js';
import { stripeRoutes } from '../stripe/stripe.routes.js';
import { subscribeWebhooks, webhookSettings } from '../webhooks/webhooks.service.js';
import { createAutomationEngine, type AutomationEngine } from './automation-engine.js';
import { automationRoutes } from './automations.routes.js';
import { automationsService } from './automations.service.js';
import { coreLicenseOperations } from './license-operations.js';

type OperationsContext = Pick<AppContext, 'config' | 'pool' | 'logger' | 'now' | 'events' | 'jobs' | 'fetch' | 'requireAdmin' | 'panicGuard' | 'services'>;

export interface Operations {
  /** Routers that need the raw body (POST /api/stripe): mount before the JSON parser. */
  rawBodyRouters: Router[];
  routers: Router[];
  webhooks: WebhookDispatcher;
  notifier: Notifier;
  engine: AutomationEngine;
  jobs: JobsService;
}

/**
 * Without a job queue (some tests) deliveries are attempted once, in this process, right away.
 * Every real start passes the queue, which stores them and retries.
 */
function inProcessQueue(logger: Pick<Logger, 'warn'>): WebhookQueue {
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

/** Wires the bus to the triggers of automated actions. */
function subscribeAutomations(bus: EventBus, engine: AutomationEngine): void {
  bus.on('LICENSE_CREATED', (data) => engine.trigger('license_created', data));
  bus.on('LICENSE_REVOKED', (data) => engine.trigger('license_revoked', data));
  bus.on('LICENSE_EXPIRED', (data) => engine.trigger('license_expired', data));
  bus.on('NEW_REQUEST_BLOCKED', (data) => engine.trigger('violation_threshold', data));
  bus.on('ANOMALY_DETECTED', (data) => engine.trigger('anomaly_detected', data));
}

/** Webhooks, notifications, automated actions, the Stripe receiver and the scheduled scans (issue 5). */
export async function setupOperations(ctx: OperationsContext): Promise<Operations> {
  const { config, pool, logger, now, events } = ctx;
  const queue: WebhookQueue = ctx.jobs ?? inProcessQueue(logger);

  const webhooks = createWebhookDispatcher({ queue, settings: () => webhookSettings(config), logger, now, fetch: ctx.fetch });
  const notifier = createLicenseNotifier(config, queue, logger);
  const engine = createAutomationEngine({
    pool, now, bus: events, notifier, webhooks, logger,
    licenses: coreLicenseOperations({ pool, now, licenses: ctx.services.licenses }),
  });
  const jobs = jobsService({
    pool, now, bus: events, notifier, logger,
    settings: {
      expiryWarningDays: config.EXPIRY_WARNING_DAYS, anomalyMaxIps: config.ANOMALY_MAX_IPS,
      anomalyWindowMinutes: config.ANOMALY_WINDOW_MINUTES, anomalyMaxFailures: config.ANOMALY_MAX_FAILURES,
    },
  });

  // Order matters only in that each subscriber is independent: the bus logs a failing one and goes on.
  subscribeWebhooks(events, webhooks);
  subscribeNotifications(events, notifier);
  subscribeAutomations(events, engine);

  await webhooks.start();
  await notifier.start();
  if (ctx.jobs) await scheduleJobs(ctx.jobs, jobs, logger);

  const stripe = stripeService({ pool, now, webhookSecret: config.STRIPE_WEBHOOK_SECRET, bus: events, engine, notifier, logger });
  return {
    rawBodyRouters: [stripeRoutes({ service: stripe, panicGuard: ctx.panicGuard })],
    routers: [automationRoutes({ service: automationsService({ pool, now, engine }), requireAdmin: ctx.requireAdmin })],
    webhooks, notifier, engine, jobs,
  };
}
