// Real local peers for tests of webhooks and notifications (and of the apps that send them).
export {
  eventually,
  startHttpRecorder,
  startTelegramStandIn,
  startTwilioStandIn,
  type HttpRecorder,
  type RecordedRequest,
} from './http-recorder.js';
export { startSmtpStandIn, type ReceivedMail, type SmtpStandIn } from './smtp-stand-in.js';
