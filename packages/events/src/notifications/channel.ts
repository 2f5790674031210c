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
