import type { Request } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import {
  checkOutgoingUrl,
  createWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from '@app/events';
import type { Guard, Logger } from '@app/http';
import { recordFailedWrite } from '../audit/audit-failures.js';
import type { FeatureModule } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import { createSecretBox } from '../two-factor/two-factor.crypto.js';
import { webhookDeliveryStore } from './webhook-deliveries.repository.js';
import { webhookEndpointRoutes } from './webhook-endpoints.routes.js';
import { createWebhookEndpointsService } from './webhook-endpoints.service.js';
import { webhookPages } from './webhooks.pages.js';
import { webhookRoutes } from './webhooks.routes.js';
import {
  assertWebhookUrlAllowed,
  subscribeWebhooks,
  createWebhooksService,
  webhookSettings,
} from './webhooks.service.js';

/** Webhook delivery's side effects and pace: DNS, HTTP out, the retry schedule (tests compress it), polling. */
export type WebhookDeliveryDeps = Partial<
  Pick<WebhookDispatcherOptions, 'lookup' | 'transport' | 'schedule' | 'pollIntervalMs' | 'probeEveryMs'>
>;

/**
 * Outgoing webhooks of the bus's events to the stored endpoints (the first one made from
 * WEBHOOK_URL), stored and retried; the admin routes of their deliveries and the `/webhooks` pages.
 */
export function webhooksModule(needs: {
  config: Config;
  pool: pg.Pool;
  logger: Logger;
  now: () => Date;
  events: EventBus;
  delivery?: WebhookDeliveryDeps;
  admin: Guard;
  adminPage: Guard;
  csrfToken: (req: Request) => string;
  sessionSecret: string;
}): FeatureModule & { dispatcher: WebhookDispatcher; checkUrl: (url: string) => Promise<void> } {
  const { config, pool, logger, now } = needs;
  const outgoing = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, lookup: needs.delivery?.lookup };
  // Endpoints' secrets are sealed under a key of their own, derived from SESSION_SECRET.
  const box = createSecretBox(needs.sessionSecret, 'webhook-endpoint-secret');
  const openSecret = (sealed: string) => {
    try {
      return box.open(sealed);
    } catch (error) {
      logger.warn(
        { err: error },
        'a webhook endpoint secret cannot be opened (SESSION_SECRET changed?): rotate it; deliveries go unsigned',
      );
      return undefined;
    }
  };
  const dispatcher = createWebhookDispatcher({
    store: webhookDeliveryStore(pool, openSecret),
    settings: () => webhookSettings(config),
    logger,
    now,
    concurrency: config.WEBHOOK_CONCURRENCY,
    ...outgoing,
    ...needs.delivery,
  });
  if (config.WEBHOOK_URL) {
    // Not refused here (the environment is the operator's), but every delivery to it would fail.
    checkOutgoingUrl(config.WEBHOOK_URL, outgoing).catch((error: Error) =>
      logger.warn(
        { url: config.WEBHOOK_URL, err: error },
        'WEBHOOK_URL is not allowed (see WEBHOOK_ALLOW_PRIVATE): its deliveries will fail',
      ),
    );
  }
  const checkUrl = (url: string) => assertWebhookUrlAllowed(url, outgoing);
  const service = createWebhooksService({ pool, now, dispatcher });
  const endpoints = createWebhookEndpointsService({ pool, now, box, checkUrl, dispatcher });
  return {
    name: 'webhooks',
    routes: [
      ...webhookRoutes({ service, admin: needs.admin }),
      ...webhookEndpointRoutes({ endpoints, admin: needs.admin }),
      ...webhookPages({
        endpoints,
        deliveries: service,
        adminPage: needs.adminPage,
        csrfToken: needs.csrfToken,
        auditFailure: (req, target, error) => recordFailedWrite(pool, req, target, error),
      }),
    ],
    dispatcher,
    checkUrl,
    eventHandlers: async () => {
      // The environment's values are the starting ones: one endpoint, made while there is none.
      await endpoints.seed({ url: config.WEBHOOK_URL, events: config.WEBHOOK_EVENTS, secret: config.WEBHOOK_SECRET });
      // The subscriber only queues the deliveries: the operation that emitted the event is barely delayed.
      subscribeWebhooks(needs.events, (event, data) => endpoints.fanOut(event, data));
    },
    jobs: () => Promise.resolve(dispatcher.start()),
    close: () => dispatcher.stop(),
  };
}
