import nodemailer from 'nodemailer';
import { providerError, type NotificationChannel } from './channel.js';

export interface EmailChannelOptions {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
  secure: boolean;
  user?: string;
  pass?: string;
  from: string;
  /** Default recipients. */
  to: string[];
}

export function createEmailChannel(options: EmailChannelOptions): NotificationChannel {
  const transport = nodemailer.createTransport({
    host: options.host,
    port: options.port,
    secure: options.secure,
    auth: options.user ? { user: options.user, pass: options.pass ?? '' } : undefined,
    // Nodemailer waits 2 minutes for a connection by default: a mistyped host would hold an
    // admin's "Send test" that long. Queued notifications are retried anyway.
    connectionTimeout: 20_000,
    greetingTimeout: 20_000,
    socketTimeout: 60_000,
  });
  return {
    name: 'email',
    async send(message, recipients) {
      const to = recipients?.length ? recipients : options.to;
      if (!to.length) throw new Error('No email recipient configured');
      try {
        await transport.sendMail({ from: options.from, to, subject: message.subject, text: message.text });
      } catch (error) {
        throw providerError('The SMTP server', error, [options.pass ?? '']);
      }
    },
  };
}
