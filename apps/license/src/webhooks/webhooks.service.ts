import type pg from 'pg';
import type { Config } from '@app/config';
import {
  checkOutgoingUrl,
  WebhookUrlNotAllowedError,
  type OutgoingUrlPolicy,
  type WebhookDispatcher,
  type WebhookSettings,
} from '@app/events';
import { appError } from '../common/error-codes.js';
import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../common/actor.js';
import { isUuid } from '../common/schemas.js';
import { licenseEventNames, type EventBus } from '../events/event-bus.js';
import { findDelivery, listDeliveries, requeueDelivery, type DeliveryStatus } from './webhook-deliveries.repository.js';
import { webhookDeliveryJson } from './webhooks.presenter.js';

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
 * Every event of the bus fans out to the endpoints that take it (webhook-endpoints.service.ts):
 * one SELECT and one INSERT per endpoint, so the operation that emitted the event is barely delayed.
 */
export function subscribeWebhooks(bus: EventBus, fanOut: (event: string, data: object) => Promise<void>): void {
  for (const event of licenseEventNames)
    bus.on(event, async (data) => {
      await fanOut(event, data);
    });
}

/** What to do about a refused URL: the spec fixes the error's text, so this goes beside it as `hint`. */
export function webhookUrlHint(reason: string): string {
  const why = reason ? `${reason.charAt(0).toUpperCase()}${reason.slice(1)}. ` : '';
  return `${why}Loopback, private and link-local addresses are refused unless the service runs with WEBHOOK_ALLOW_PRIVATE=true in its environment.`;
}

/**
 * The save-time check of an outgoing URL: 400 `Webhook URL not allowed` with a `hint` naming
 * WEBHOOK_ALLOW_PRIVATE (delivery checks again).
 */
export async function assertWebhookUrlAllowed(url: string, policy: OutgoingUrlPolicy): Promise<void> {
  try {
    await checkOutgoingUrl(url, policy);
  } catch (error) {
    if (error instanceof WebhookUrlNotAllowedError) {
      throw appError('WEBHOOK_URL_NOT_ALLOWED', {
        message: error.message,
        extra: { hint: webhookUrlHint(error.reason) },
      });
    }
    throw error;
  }
}

/** The admin's view of deliveries: list them and send one again. */
export function createWebhooksService(deps: {
  pool: pg.Pool;
  now: () => Date;
  dispatcher: Pick<WebhookDispatcher, 'wake'>;
}) {
  const { pool } = deps;
  return {
    async list(filter: { status?: DeliveryStatus; limit: number; skip: number }) {
      const { rows, total } = await listDeliveries(pool, filter);
      return { deliveries: rows.map(webhookDeliveryJson), total };
    },

    /** Makes a delivered or failed delivery pending again, due now, with a fresh retry schedule. */
    async redeliver(actor: Actor, id: string) {
      const before = isUuid(id) ? await findDelivery(pool, id) : undefined;
      if (!before) throw appError('DELIVERY_NOT_FOUND');
      const requeued = await requeueDelivery(pool, id, deps.now());
      if (!requeued) throw appError('DELIVERY_PENDING');
      const delivery = webhookDeliveryJson(requeued);
      await recordAudit(pool, actor, {
        action: 'update',
        resourceType: 'notification',
        resourceId: id,
        before: { status: before.status, attempts: before.attempts, lastError: before.last_error },
        after: { status: delivery.status, redelivered: true },
      });
      deps.dispatcher.wake();
      return delivery;
    },
  };
}
