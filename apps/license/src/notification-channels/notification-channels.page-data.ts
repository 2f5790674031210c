import type { ChannelName } from '@app/events';
import type { FlashMessage } from '../console/admin-pages.js';
import { adminLayout } from '../console/layout.js';
import type { ChannelSettings, EffectiveChannels } from './notification-channels.schema.js';
import { webhooksSubnav } from '../webhooks/webhooks.page-data.js';

// What the notification channels page (views/notification-channels/channels.ejs) reads: each
// channel's values in force (or as typed, when its form had errors), its secret only as
// "set" with at most its last 4 characters, and which notifications it receives.

export const channelsPath = '/webhooks/channels';
export const channelHref = (name: ChannelName) => `${channelsPath}/${name}`;

/** A secret as the page may show it: whether it is set, and its last 4 characters when it is long enough to spare them. */
export function secretHint(secret: string): string {
  if (!secret) return 'not set';
  return secret.length >= 12 ? `set, ends in …${secret.slice(-4)}` : 'set';
}

/** The text fields of a channel's form (secrets never among them). */
export type ChannelValues = Record<string, string | boolean>;

export function valuesOf(effective: EffectiveChannels, name: ChannelName): ChannelValues {
  if (name === 'email') {
    const { enabled, host, port, secure, user, from, to } = effective.email;
    return { enabled, host, port: String(port), secure, user, from, to: to.join(', ') };
  }
  if (name === 'sms') {
    const { enabled, accountSid, from, to } = effective.sms;
    return { enabled, accountSid, from, to: to.join(', ') };
  }
  const { enabled, chatId } = effective.telegram;
  return { enabled, chatId };
}

/** A form sent back with errors: what was typed, never the secret. */
export function valuesTyped(form: Record<string, string | undefined>, name: ChannelName): ChannelValues {
  const text = (key: string) => form[key] ?? '';
  const ticked = (key: string) => form[key] !== undefined;
  if (name === 'email')
    return {
      enabled: ticked('enabled'),
      host: text('host'),
      port: text('port'),
      secure: ticked('secure'),
      user: text('user'),
      from: text('from'),
      to: text('to'),
    };
  if (name === 'sms')
    return { enabled: ticked('enabled'), accountSid: text('accountSid'), from: text('from'), to: text('to') };
  return { enabled: ticked('enabled'), chatId: text('chatId') };
}

const kindLabel = (kind: string) => kind.replace(/_/g, ' ');

/**
 * Which notifications a channel receives, as a sentence; when none, how to route some to it,
 * naming the environment variables (NOTIFY_<KIND>, one per kind of notification) that do it.
 */
export function receivesText(name: ChannelName, routing: Record<string, ChannelName[]>): string {
  const kinds = Object.entries(routing)
    .filter(([, channels]) => channels.includes(name))
    .map(([kind]) => kindLabel(kind));
  if (kinds.length) return `Receives: ${kinds.join(', ')}.`;
  const variables = Object.keys(routing).map((kind) => `NOTIFY_${kind.toUpperCase()}`);
  const example = variables.includes('NOTIFY_LICENSE_VIOLATION')
    ? 'NOTIFY_LICENSE_VIOLATION'
    : (variables[0] ?? 'NOTIFY_CUSTOM');
  return (
    `Receives no notifications yet. To send some here, add ${name} to one of the environment variables ` +
    `${variables.join(', ')} (for example ${example}=${name}) and restart the service.`
  );
}

export interface ChannelsPageInput {
  effective: EffectiveChannels;
  stored: ChannelSettings;
  routing: Record<string, ChannelName[]>;
  /** The channel whose form had errors: what was typed, and the errors. */
  failed?: { name: ChannelName; values: ChannelValues; errors: string[] };
}

export function channelsPageData(
  username: string,
  input: ChannelsPageInput,
  extras: { messages: FlashMessage[]; csrfToken: string },
) {
  const { effective, stored, routing, failed } = input;
  const card = (name: ChannelName, label: string, secret: string, recipient: string) => {
    const saved = Object.values(stored[name]).some((value) => value !== null);
    return {
      name,
      label,
      href: channelHref(name),
      values: failed?.name === name ? failed.values : valuesOf(effective, name),
      errors: failed?.name === name ? failed.errors : [],
      enabled: effective[name].enabled,
      secret: secretHint(secret),
      source: saved ? 'Saved in the console' : 'From the environment',
      receives: receivesText(name, routing),
      testRecipient: recipient,
    };
  };
  return {
    ...adminLayout('Notification channels', username, 'webhooks'),
    messages: extras.messages,
    csrfToken: extras.csrfToken,
    subnav: webhooksSubnav('channels'),
    /** The channel whose form had errors, for the note at the top of the page (on a phone the card is far below). */
    failedChannel: failed
      ? { label: { email: 'Email', sms: 'SMS', telegram: 'Telegram' }[failed.name], href: `#${failed.name}` }
      : null,
    channels: {
      email: card('email', 'Email', effective.email.pass, effective.email.to.join(', ')),
      sms: card('sms', 'SMS', effective.sms.authToken, effective.sms.to.join(', ')),
      telegram: card('telegram', 'Telegram', effective.telegram.botToken, effective.telegram.chatId),
    },
  };
}
