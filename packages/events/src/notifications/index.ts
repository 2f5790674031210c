export {
  NOTIFICATION_CHANNELS,
  type ChannelName,
  type NotificationChannel,
  type NotificationMessage,
} from './channel.js';
export {
  createEmailChannel,
  refuseSmtpHost,
  SMTP_HOST_NOT_ALLOWED,
  SmtpHostNotAllowedError,
  type EmailChannelOptions,
} from './email-channel.js';
export { createSmsChannel, type SmsChannelOptions } from './sms-channel.js';
export { createTelegramChannel, type TelegramChannelOptions } from './telegram-channel.js';
export { createNotifier, type Notifier, type NotifierOptions } from './notifier.js';
