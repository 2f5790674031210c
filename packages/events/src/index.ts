export { createJobQueue, type JobQueue, type JobQueueOptions, type SendOptions, type WorkOptions, type WorkQueue } from './job-queue.js';
export * from './webhooks/index.js';
export * from './notifications/index.js';
