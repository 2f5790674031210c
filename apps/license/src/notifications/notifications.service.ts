import type { Config } from '@app/config';
import {
  createEmailChannel,
  createNotifier,
  createSmsChannel,
  createTelegramChannel,
  type ChannelName,
  type NotificationChannel,
  type Notifier,
  type NotifierOptions,
  type WorkQueue,
} from '@app/events';
import type { Logger } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import { DEFAULT_LANGUAGE, type Language } from '@app/ui';
import { translatorFor } from '../console/language.js';

/** The notification kinds the spec lists, each routed to its channels by NOTIFY_<KIND>. */
export const notificationKinds = [
  'license_expiring',
  'license_violation',
  'anomaly',
  'security',
  'transaction',
  'automated_action',
  'custom',
] as const;
export type NotificationKind = (typeof notificationKinds)[number];

/** The channels configured in the environment; one that lacks its settings is left out. */
export function channelsFromConfig(config: Config): Partial<Record<ChannelName, NotificationChannel>> {
  const channels: Partial<Record<ChannelName, NotificationChannel>> = {};
  if (config.SMTP_HOST) {
    channels.email = createEmailChannel({
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      user: config.SMTP_USER,
      pass: config.SMTP_PASS,
      from: config.SMTP_FROM,
      to: config.NOTIFY_EMAIL_TO,
      // The environment's own SMTP_HOST is the operator's choice: it may be on the local network.
      outgoing: { allowPrivate: true },
    });
  }
  if (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM) {
    channels.sms = createSmsChannel({
      accountSid: config.TWILIO_ACCOUNT_SID,
      authToken: config.TWILIO_AUTH_TOKEN,
      from: config.TWILIO_FROM,
      to: config.NOTIFY_SMS_TO,
      baseUrl: config.TWILIO_BASE_URL,
    });
  }
  if (config.TELEGRAM_BOT_TOKEN && config.TELEGRAM_CHAT_ID) {
    channels.telegram = createTelegramChannel({
      token: config.TELEGRAM_BOT_TOKEN,
      chatId: config.TELEGRAM_CHAT_ID,
      baseApiUrl: config.TELEGRAM_API_URL,
    });
  }
  return channels;
}

/** NOTIFY_<KIND> lists (validated channel names, see the config schema). */
export function routingFromConfig(config: Config): Record<NotificationKind, ChannelName[]> {
  return {
    license_expiring: config.NOTIFY_LICENSE_EXPIRING,
    license_violation: config.NOTIFY_LICENSE_VIOLATION,
    anomaly: config.NOTIFY_ANOMALY,
    security: config.NOTIFY_SECURITY,
    transaction: config.NOTIFY_TRANSACTION,
    automated_action: config.NOTIFY_AUTOMATED_ACTION,
    custom: config.NOTIFY_CUSTOM,
  };
}

/** Notifications go through the job queue, so a mail server that is down delays them instead of losing them. */
export function createLicenseNotifier(
  config: Config,
  queue: WorkQueue | undefined,
  logger: Logger,
  channels: NotifierOptions['channels'] = channelsFromConfig(config),
): Notifier {
  return createNotifier({ channels, routing: routingFromConfig(config), queue, logger });
}

const describe = (data: Record<string, unknown>) =>
  Object.entries(data)
    .map(
      ([key, value]) =>
        `${key}: ${typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' || value === undefined ? String(value) : JSON.stringify(value)}`,
    )
    .join('\n');

/**
 * Events of the bus that the spec lists as notification subjects. The alerts go to the
 * operators' configured addresses, whose language the service does not know: they are written
 * in `language` (the service default, English).
 */
export function subscribeNotifications(
  bus: EventBus,
  notifier: Pick<Notifier, 'notify'>,
  language: Language = DEFAULT_LANGUAGE,
): void {
  const t = translatorFor(language);
  bus.on('NEW_REQUEST_BLOCKED', async (data) => {
    // One alert per license and reason a minute: an attack of blocked validations is not a flood of messages.
    await notifier.notify(
      'license_violation',
      {
        subject: t('notifications.violation', {
          reason: typeof data.reason === 'string' ? data.reason : t('notifications.validationBlocked'),
        }),
        text: describe(data),
      },
      { key: `${String(data.licenseId)}:${String(data.reason)}`, seconds: 60 },
    );
  });
  bus.on('ANOMALY_DETECTED', async (data) => {
    await notifier.notify('anomaly', {
      subject: t('notifications.anomaly', {
        kind: typeof data.kind === 'string' ? data.kind : t('notifications.suspiciousActivity'),
      }),
      text: describe(data),
    });
  });
  bus.on('LICENSE_EXPIRED', async (data) => {
    await notifier.notify('license_expiring', {
      subject: t('notifications.expired', { key: String(data.licenseKey) }),
      text: describe(data),
    });
  });
  bus.on('AUTOMATED_ACTION', async (data) => {
    await notifier.notify('automated_action', {
      subject: t('notifications.automatedAction', { name: String(data.name) }),
      text: describe(data),
    });
  });
}
