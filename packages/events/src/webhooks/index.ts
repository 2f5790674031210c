export {
  signWebhookPayload,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  type VerifyWebhookOptions,
} from './signature.js';
export {
  CONNECTION_FAILED,
  createWebhookDispatcher,
  isWebhookEventEnabled,
  WEBHOOK_ID_HEADER,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookSettings,
} from './webhook-dispatcher.js';
export type { AttemptOutcome, NewDelivery, StoredDelivery, WebhookDeliveryStore } from './delivery-store.js';
export {
  checkOutgoingUrl,
  parseOutgoingUrl,
  WEBHOOK_URL_NOT_ALLOWED,
  WebhookUrlNotAllowedError,
  type OutgoingUrlPolicy,
  type WebhookLookup,
} from './outgoing-url.js';
export { minimumRetrySpanMs, scaleRetrySchedule, webhookRetrySchedule, type RetrySchedule } from './retry-schedule.js';
export {
  createWebhookTransport,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookTransport,
} from './webhook-transport.js';
