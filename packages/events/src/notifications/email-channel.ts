import type { LookupAddress } from 'node:dns';
import {
  addressOf,
  bareHost,
  OutgoingAddressNotAllowedError,
  resolveOutgoingHost,
  type OutgoingAddressPolicy,
} from '../outgoing-address.js';
import { providerError, type NotificationChannel } from './channel.js';

/** The refusal of an SMTP host that is (or resolves to) an address the policy does not allow. */
export const SMTP_HOST_NOT_ALLOWED = 'SMTP host not allowed';

export class SmtpHostNotAllowedError extends OutgoingAddressNotAllowedError {
  constructor(reason: string) {
    super(SMTP_HOST_NOT_ALLOWED, reason);
    this.name = 'SmtpHostNotAllowedError';
  }
}
export const refuseSmtpHost = (reason: string) => new SmtpHostNotAllowedError(reason);

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
  /**
   * Which addresses the host may resolve to (and the DNS lookup): public ones only, unless the
   * caller allows private ones (the environment's own SMTP_HOST, SMTP_ALLOW_PRIVATE).
   */
  outgoing: OutgoingAddressPolicy;
}

/**
 * Email over SMTP (nodemailer). Each message resolves the host once, checks every address, and
 * connects to the first of them, with TLS's server name (SNI and the certificate's check) set
 * to the host's name: nodemailer never resolves the name itself, so the connection goes to the
 * address that was checked. A refused host throws SmtpHostNotAllowedError.
 */
export function createEmailChannel(options: EmailChannelOptions): NotificationChannel {
  const auth = options.user ? { user: options.user, pass: options.pass ?? '' } : undefined;
  const servername = addressOf(options.host) ? undefined : bareHost(options.host);
  const secrets = [options.pass ?? ''];
  return {
    name: 'email',
    async send(message, recipients) {
      const to = recipients?.length ? recipients : options.to;
      if (!to.length) throw new Error('No email recipient configured');
      let checked: LookupAddress[];
      try {
        checked = await resolveOutgoingHost(options.host, options.outgoing, refuseSmtpHost);
      } catch (error) {
        if (error instanceof SmtpHostNotAllowedError) throw error;
        throw providerError('The SMTP server', error, secrets);
      }
      // Loaded at the first message: a service that sends no email need not hold nodemailer.
      const { default: nodemailer } = await import('nodemailer');
      const transport = nodemailer.createTransport({
        host: checked[0]!.address,
        port: options.port,
        secure: options.secure,
        auth,
        ...(servername ? { tls: { servername } } : {}),
        // Nodemailer waits 2 minutes for a connection by default: a mistyped host would hold an
        // admin's "Send test" that long. Queued notifications are retried anyway.
        connectionTimeout: 20_000,
        greetingTimeout: 20_000,
        socketTimeout: 60_000,
      });
      try {
        await transport.sendMail({ from: options.from, to, subject: message.subject, text: message.text });
      } catch (error) {
        throw providerError('The SMTP server', error, secrets);
      } finally {
        transport.close();
      }
    },
  };
}
