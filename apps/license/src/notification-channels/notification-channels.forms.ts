import type { ChannelName } from '@app/events';
import type { SettingsPatch } from '@app/settings';
import type { ChannelSettings, EffectiveChannels } from './notification-channels.schema.js';

// A channel's form (every field a string, a checkbox not ticked is not sent) as the settings
// to store, or the sentences that say what is wrong, each named by its field's label.

type Form = Record<string, string | undefined>;
export type ParsedForm = { ok: true; patch: SettingsPatch<ChannelSettings> } | { ok: false; errors: string[] };

const trimmed = (form: Form, key: string) => (form[key] ?? '').trim();
const ticked = (form: Form, key: string) => form[key] !== undefined;
const listOf = (value: string) =>
  value
    .split(/[,;\s]+/)
    .map((part) => part.trim())
    .filter(Boolean);

const hostPattern = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$/;
const emailPattern = /^[^\s@<>]+@[^\s@<>]+$/;
/** An address alone or with a display name: `Licenses <licenses@example.com>`. */
const fromPattern = /^([^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;
const phonePattern = /^\+[1-9]\d{6,14}$/;
const senderPattern = /^(\+[1-9]\d{6,14}|[A-Za-z0-9 ]{1,11})$/;
const accountSidPattern = /^AC[0-9a-fA-F]{32}$/;
const botTokenPattern = /^\d+:[A-Za-z0-9_-]+$/;
const chatIdPattern = /^(-?\d{1,20}|@[A-Za-z0-9_]{4,64})$/;

/**
 * The new secret: typed (kept as typed), removed ('' when the remove box is ticked) or, left
 * blank, the one in force (undefined: the stored field is not touched).
 */
function secretOf(form: Form, field: string, clearField: string): string | undefined {
  if (ticked(form, clearField)) return '';
  const typed = form[field] ?? '';
  return typed.trim() ? typed : undefined;
}

export function parseChannelForm(name: ChannelName, form: Form, current: EffectiveChannels): ParsedForm {
  if (name === 'email') return parseEmail(form, current);
  if (name === 'sms') return parseSms(form, current);
  return parseTelegram(form, current);
}

function result(errors: string[], patch: SettingsPatch<ChannelSettings>): ParsedForm {
  return errors.length ? { ok: false, errors } : { ok: true, patch };
}

function parseEmail(form: Form, current: EffectiveChannels): ParsedForm {
  const errors: string[] = [];
  const enabled = ticked(form, 'enabled');
  const host = trimmed(form, 'host');
  const portText = trimmed(form, 'port') || '587';
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  const user = trimmed(form, 'user');
  const from = trimmed(form, 'from');
  const to = listOf(trimmed(form, 'to'));
  const pass = secretOf(form, 'pass', 'clearPass');
  if (host && !hostPattern.test(host))
    errors.push('SMTP host: a host name or IP address, without "smtp://" or a port.');
  if (!(port >= 1 && port <= 65535)) errors.push('SMTP port: a number from 1 to 65535.');
  if (from && !fromPattern.test(from))
    errors.push('From address: an email address, optionally with a name: Licenses <licenses@example.com>.');
  const wrong = to.filter((address) => !emailPattern.test(address));
  if (wrong.length) errors.push(`Email recipients: not an email address: ${wrong.join(', ')}.`);
  if (to.length > 50) errors.push('Email recipients: at most 50.');
  if (enabled && !host) errors.push('SMTP host: required while the channel is enabled.');
  if (enabled && !from) errors.push('From address: required while the channel is enabled.');
  // The password in force belongs to its server: it is not sent to a different one unless typed again.
  if (pass === undefined && current.email.pass && host !== current.email.host) {
    errors.push(
      'SMTP password: the SMTP host changed, so type its password again (or tick “Remove the saved password”).',
    );
  }
  return result(errors, { email: { enabled, host, port, secure: ticked(form, 'secure'), user, pass, from, to } });
}

function parseSms(form: Form, current: EffectiveChannels): ParsedForm {
  const errors: string[] = [];
  const enabled = ticked(form, 'enabled');
  const accountSid = trimmed(form, 'accountSid');
  const from = trimmed(form, 'from');
  const to = listOf(trimmed(form, 'to'));
  const authToken = secretOf(form, 'authToken', 'clearAuthToken');
  if (accountSid && !accountSidPattern.test(accountSid))
    errors.push('Twilio account SID: "AC" and 32 hexadecimal digits.');
  if (from && !senderPattern.test(from))
    errors.push(
      'Sender number: a number in international format (+15550001234) or a sender name of up to 11 letters and digits.',
    );
  const wrong = to.filter((number) => !phonePattern.test(number));
  if (wrong.length)
    errors.push(`SMS recipients: not a number in international format (+15550001234): ${wrong.join(', ')}.`);
  if (to.length > 50) errors.push('SMS recipients: at most 50.');
  const tokenAfter = authToken ?? current.sms.authToken;
  if (enabled && !accountSid) errors.push('Twilio account SID: required while the channel is enabled.');
  if (enabled && !tokenAfter) errors.push('Twilio auth token: required while the channel is enabled.');
  if (enabled && !from) errors.push('Sender number: required while the channel is enabled.');
  if (authToken === undefined && current.sms.authToken && accountSid !== current.sms.accountSid) {
    errors.push(
      'Twilio auth token: the account SID changed, so type its auth token again (or tick “Remove the saved auth token”).',
    );
  }
  return result(errors, { sms: { enabled, accountSid, authToken, from, to } });
}

function parseTelegram(form: Form, current: EffectiveChannels): ParsedForm {
  const errors: string[] = [];
  const enabled = ticked(form, 'enabled');
  const chatId = trimmed(form, 'chatId');
  const botToken = secretOf(form, 'botToken', 'clearBotToken');
  // In the order of the form's fields.
  const tokenAfter = botToken ?? current.telegram.botToken;
  if (botToken && !botTokenPattern.test(botToken.trim()))
    errors.push('Telegram bot token: the token BotFather gave, like 123456:ABC-DEF1234ghIkl.');
  if (enabled && !tokenAfter) errors.push('Telegram bot token: required while the channel is enabled.');
  if (chatId && !chatIdPattern.test(chatId))
    errors.push('Telegram chat id: a number (groups start with "-") or a channel name like @my_channel.');
  if (enabled && !chatId) errors.push('Telegram chat id: required while the channel is enabled.');
  return result(errors, { telegram: { enabled, botToken: botToken?.trim(), chatId } });
}
