export { startS3Server, type TestS3Server } from './testing/s3-server.js';
