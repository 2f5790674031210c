import type pg from 'pg';
import type { Config } from '@app/config';
import { checkOutgoingUrl, createWebhookDispatcher, type WebhookDispatcher, type WebhookDispatcherOptions } from '@app/events';
import type { Guard, Logger } from '@app/http';
import type { FeatureModule } from '../common/feature-module.js';
import type { EventBus } from '../events/event-bus.js';
import { webhookDeliveryStore } from './webhook-deliveries.repository.js';
import { webhookRoutes } from './webhooks.routes.js';
import { assertWebhookUrlAllowed, subscribeWebhooks, createWebhooksService, webhookSettings } from './webhooks.service.js';

/** Webhook delivery's side effects and pace: DNS, HTTP out, the retry schedule (tests compress it), polling. */
export type WebhookDeliveryDeps = Partial<Pick<WebhookDispatcherOptions, 'lookup' | 'transport' | 'schedule' | 'pollIntervalMs' | 'probeEveryMs'>>;

/** Outgoing webhooks of the bus's events (WEBHOOK_URL), stored and retried, and the admin routes of their deliveries. */
export function webhooksModule(needs: {
  config: Config; pool: pg.Pool; logger: Logger; now: () => Date; events: EventBus; delivery?: WebhookDeliveryDeps; admin: Guard;
}): FeatureModule & { dispatcher: WebhookDispatcher; checkUrl: (url: string) => Promise<void> } {
  const { config, pool, logger, now } = needs;
  const outgoing = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, lookup: needs.delivery?.lookup };
  const dispatcher = createWebhookDispatcher({
    store: webhookDeliveryStore(pool), settings: () => webhookSettings(config), logger, now,
    concurrency: config.WEBHOOK_CONCURRENCY, ...outgoing, ...needs.delivery,
  });
  if (config.WEBHOOK_URL) {
    // Not refused here (the environment is the operator's), but every delivery to it would fail.
    checkOutgoingUrl(config.WEBHOOK_URL, outgoing).catch((error: Error) =>
      logger.warn({ url: config.WEBHOOK_URL, err: error }, 'WEBHOOK_URL is not allowed (see WEBHOOK_ALLOW_PRIVATE): its deliveries will fail'));
  }
  return {
    name: 'webhooks',
    routes: webhookRoutes({ service: createWebhooksService({ pool, now, dispatcher }), admin: needs.admin }),
    dispatcher,
    checkUrl: (url) => assertWebhookUrlAllowed(url, outgoing),
    // The subscriber only queues the delivery (one INSERT): the operation that emitted the event is barely delayed.
    eventHandlers: () => subscribeWebhooks(needs.events, dispatcher),
    jobs: async () => dispatcher.start(),
    close: () => dispatcher.stop(),
  };
}
