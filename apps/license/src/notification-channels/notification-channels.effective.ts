import type { Config } from '@app/config';
import {
  bareHost,
  createEmailChannel,
  createSmsChannel,
  createTelegramChannel,
  type ChannelName,
  type NotificationChannel,
  type OutgoingAddressPolicy,
  type OutgoingLookup,
} from '@app/events';
import type { ChannelSettings, EffectiveChannels } from './notification-channels.schema.js';

/** Each channel's settings in force: a stored value where one was saved, else the environment's. */
export function effectiveChannels(stored: ChannelSettings, config: Config): EffectiveChannels {
  const { email, sms, telegram } = stored;
  return {
    email: {
      enabled: email.enabled ?? Boolean(config.SMTP_HOST),
      host: email.host ?? config.SMTP_HOST ?? '',
      port: email.port ?? config.SMTP_PORT,
      secure: email.secure ?? config.SMTP_SECURE,
      user: email.user ?? config.SMTP_USER ?? '',
      pass: email.pass ?? config.SMTP_PASS ?? '',
      from: email.from ?? config.SMTP_FROM,
      to: email.to ?? config.NOTIFY_EMAIL_TO,
    },
    sms: {
      enabled: sms.enabled ?? Boolean(config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM),
      accountSid: sms.accountSid ?? config.TWILIO_ACCOUNT_SID ?? '',
      authToken: sms.authToken ?? config.TWILIO_AUTH_TOKEN ?? '',
      from: sms.from ?? config.TWILIO_FROM ?? '',
      to: sms.to ?? config.NOTIFY_SMS_TO,
      // The API's address stays in the environment (a proxy, or a stand-in in tests): the
      // console cannot send the stored token somewhere else.
      baseUrl: config.TWILIO_BASE_URL,
    },
    telegram: {
      enabled: telegram.enabled ?? Boolean(config.TELEGRAM_BOT_TOKEN && config.TELEGRAM_CHAT_ID),
      botToken: telegram.botToken ?? config.TELEGRAM_BOT_TOKEN ?? '',
      chatId: telegram.chatId ?? config.TELEGRAM_CHAT_ID ?? '',
      apiUrl: config.TELEGRAM_API_URL,
    },
  };
}

/** What a channel lacks before it can send (labels as the page shows them); empty when it can. */
export function missingFields(effective: EffectiveChannels, name: ChannelName): string[] {
  const missing = (entries: Array<[string, string]>) => entries.filter(([, value]) => !value).map(([label]) => label);
  if (name === 'email')
    return missing([
      ['SMTP host', effective.email.host],
      ['From address', effective.email.from],
    ]);
  if (name === 'sms')
    return missing([
      ['Twilio account SID', effective.sms.accountSid],
      ['Twilio auth token', effective.sms.authToken],
      ['Sender number', effective.sms.from],
    ]);
  return missing([
    ['Telegram bot token', effective.telegram.botToken],
    ['Telegram chat id', effective.telegram.chatId],
  ]);
}

/** The same host, however its case, brackets or final dot are written. */
const sameHost = (a: string, b: string) => {
  const plain = (host: string) => bareHost(host.trim().toLowerCase()).replace(/\.$/, '');
  return plain(a) === plain(b);
};

/**
 * Where an SMTP host may connect: public addresses only, except the environment's own
 * SMTP_HOST (the operator's choice) or with SMTP_ALLOW_PRIVATE=true. A host set in the console
 * could otherwise make the service knock on inner addresses and ports for whoever set it.
 */
export function smtpAddressPolicy(host: string, config: Config, lookup?: OutgoingLookup): OutgoingAddressPolicy {
  const environmentHost = Boolean(config.SMTP_HOST) && sameHost(host, config.SMTP_HOST ?? '');
  return { allowPrivate: config.SMTP_ALLOW_PRIVATE || environmentHost, lookup };
}

/**
 * One channel built from its settings (whether or not it is enabled); undefined when a required
 * field is missing. `smtpPolicy` gives the addresses the email channel's host may reach.
 */
export function buildChannel(
  effective: EffectiveChannels,
  name: ChannelName,
  smtpPolicy: (host: string) => OutgoingAddressPolicy,
): NotificationChannel | undefined {
  if (missingFields(effective, name).length) return undefined;
  if (name === 'email') {
    const { host, port, secure, user, pass, from, to } = effective.email;
    return createEmailChannel({
      host,
      port,
      secure,
      user: user || undefined,
      pass: pass || undefined,
      from,
      to,
      outgoing: smtpPolicy(host),
    });
  }
  if (name === 'sms') {
    const { accountSid, authToken, from, to, baseUrl } = effective.sms;
    return createSmsChannel({ accountSid, authToken, from, to, baseUrl });
  }
  const { botToken, chatId, apiUrl } = effective.telegram;
  return createTelegramChannel({ token: botToken, chatId, baseApiUrl: apiUrl });
}

/** The secrets of the settings in force (to keep them out of any text shown or recorded). */
export const secretsOf = (effective: EffectiveChannels) =>
  [effective.email.pass, effective.sms.authToken, effective.telegram.botToken].filter((secret) => secret.length > 0);
