export { createJobQueue, type JobQueue, type JobQueueOptions, type SendOptions, type WorkOptions } from './job-queue.js';
