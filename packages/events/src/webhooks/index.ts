export { signWebhookPayload, verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, type VerifyWebhookOptions } from './signature.js';
export {
  createWebhookDispatcher, isWebhookEventEnabled,
  type WebhookDispatcher, type WebhookDispatcherOptions, type WebhookJob, type WebhookQueue, type WebhookSettings,
} from './webhook-dispatcher.js';
