import type { Config } from '@app/config';
import type { WebhookDispatcher, WebhookSettings } from '@app/events';
import { licenseEventNames, type EventBus } from '../events/event-bus.js';

/** The webhook settings of the environment (WEBHOOK_*). */
export function webhookSettings(config: Config): WebhookSettings {
  return {
    url: config.WEBHOOK_URL,
    events: config.WEBHOOK_EVENTS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retries: config.WEBHOOK_RETRIES,
    secret: config.WEBHOOK_SECRET,
  };
}

/**
 * Every event of the bus goes to the dispatcher, which queues it in the database when the event
 * is enabled. Queuing is one INSERT, so the operation that emitted the event is barely delayed.
 */
export function subscribeWebhooks(bus: EventBus, dispatcher: Pick<WebhookDispatcher, 'emit'>): void {
  for (const event of licenseEventNames) bus.on(event, async (data) => { await dispatcher.emit(event, data); });
}
