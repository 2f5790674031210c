/** The channels the spec names for notifications. */
export const NOTIFICATION_CHANNELS = ['email', 'sms', 'telegram'] as const;
export type ChannelName = (typeof NOTIFICATION_CHANNELS)[number];

export interface NotificationMessage {
  subject: string;
  text: string;
}

/** One way out: sends a message to its configured recipients, or to the ones given. Throws on failure. */
export interface NotificationChannel {
  readonly name: ChannelName;
  send(message: NotificationMessage, recipients?: string[]): Promise<void>;
}

/**
 * A provider's failure as a plain Error: its message (or the HTTP status it answered) and code,
 * nothing else. The clients' own errors carry the request they made (Telegram's URL holds the
 * bot token) and would put it in any log line or job record that serializes them.
 */
export function providerError(provider: string, error: unknown, secrets: string[]): Error {
  const field = (name: string): unknown =>
    typeof error === 'object' && error !== null ? Reflect.get(error, name) : undefined;
  const given = field('message');
  const status = field('status');
  const code = field('code');
  let message =
    typeof given === 'string' && given && given !== 'undefined'
      ? given
      : typeof status === 'number'
        ? `${provider} answered HTTP ${status}`
        : `${provider} failed`;
  for (const secret of secrets.filter(Boolean)) message = message.split(secret).join('[redacted]');
  const clean = new Error(message);
  if (typeof code === 'string' || typeof code === 'number') Object.assign(clean, { code });
  return clean;
}
