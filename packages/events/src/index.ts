export { createJobQueue, type JobQueue, type JobQueueOptions, type SendOptions, type WorkOptions } from './job-queue.js';
export * from './webhooks/index.js';
export * from './notifications/index.js';
