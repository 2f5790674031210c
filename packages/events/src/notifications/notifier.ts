import type { ChannelName, NotificationChannel, NotificationMessage } from './channel.js';
import type { WorkQueue } from '../job-queue.js';

export interface NotifierOptions {
  /**
   * The channels that are configured; a channel missing here is skipped. A function is asked at
   * each send, so channels changed at run time (settings stored in the database) apply at once.
   */
  channels:
    Partial<Record<ChannelName, NotificationChannel>> | (() => Partial<Record<ChannelName, NotificationChannel>>);
  /** Channels per notification kind (e.g. `anomaly: ['telegram']`); a kind without channels sends nothing. */
  routing: Record<string, ChannelName[]>;
  /** When set, routed notifications are queued in the database and retried; otherwise sent at once. */
  queue?: WorkQueue;
  queueName?: string;
  retries?: number;
  logger?: { warn(obj: object, msg?: string): void };
}

interface NotificationJob {
  channel: ChannelName;
  message: NotificationMessage;
  recipients?: string[];
}

export interface Notifier {
  /** Registers the queue worker (when a queue is used). */
  start(): Promise<void>;
  /**
   * Sends `message` to every channel routed for `kind`; resolves to the channels it went to.
   * With `throttle` (and a queue), at most one message per key and channel is sent in each slot
   * of `seconds`, so a burst of identical alerts (an attack of blocked validations) is one message.
   */
  notify(
    kind: string,
    message: NotificationMessage,
    throttle?: { key: string; seconds: number },
  ): Promise<ChannelName[]>;
  /** Sends through one channel now (automated actions report the outcome); throws when it fails or is not configured. */
  sendVia(channel: ChannelName, message: NotificationMessage, recipients?: string[]): Promise<void>;
  /** The channels that are configured. */
  configured(): ChannelName[];
}

export function createNotifier(options: NotifierOptions): Notifier {
  const queueName = options.queueName ?? 'notification-delivery';
  const source = options.channels;
  const channels = typeof source === 'function' ? source : () => source;

  async function sendVia(name: ChannelName, message: NotificationMessage, recipients?: string[]): Promise<void> {
    const channel = channels()[name];
    if (!channel) throw new Error(`Notification channel ${name} is not configured`);
    await channel.send(message, recipients);
  }

  return {
    async start() {
      if (options.queue)
        await options.queue.work<NotificationJob>(queueName, (job) =>
          sendVia(job.channel, job.message, job.recipients),
        );
    },
    async notify(kind, message, throttle) {
      const current = channels();
      const targets = (options.routing[kind] ?? []).filter((name) => current[name]);
      for (const channel of targets) {
        if (options.queue) {
          await options.queue.send<NotificationJob>(
            queueName,
            { channel, message },
            {
              retryLimit: options.retries ?? 3,
              retryDelay: 5,
              retryBackoff: true,
              ...(throttle
                ? { singletonKey: `${kind}:${throttle.key}:${channel}`, singletonSeconds: throttle.seconds }
                : {}),
            },
          );
        } else {
          // Without a queue one failing channel must not keep the message from the others.
          await sendVia(channel, message).catch((error: Error) =>
            options.logger?.warn({ err: error, channel, kind }, 'notification failed'),
          );
        }
      }
      return targets;
    },
    sendVia,
    configured: () => {
      const current = channels();
      return (Object.keys(current) as ChannelName[]).filter((name) => current[name]);
    },
  };
}
