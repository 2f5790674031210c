export {
  createJobQueue,
  type JobQueue,
  type JobQueueOptions,
  type SendOptions,
  type WorkOptions,
  type WorkQueue,
} from './job-queue.js';
export {
  addressOf,
  bareHost,
  checkOutgoingHost,
  isPublicAddress,
  OutgoingAddressNotAllowedError,
  resolveOutgoingHost,
  systemLookup,
  type OutgoingAddressPolicy,
  type OutgoingLookup,
  type Refusal,
} from './outgoing-address.js';
export * from './webhooks/index.js';
export * from './notifications/index.js';
