import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type { NotificationChannel } from './channel.js';

export interface SmsChannelOptions {
  accountSid: string;
  authToken: string;
  from: string;
  /** Default recipients (E.164 numbers). */
  to: string[];
  /** Replaces https://api.twilio.com (a proxy, or a local server standing in for Twilio in tests). */
  baseUrl?: string;
}

/**
 * Twilio's client has no base URL option, but takes an HTTP client: this one sends each request
 * to the same path under `baseUrl` instead of Twilio's host.
 */
class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: URL) {
    super();
  }

  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const target = new URL(opts.uri);
    const rewritten = new URL(this.baseUrl.pathname.replace(/\/$/, '') + target.pathname + target.search, this.baseUrl);
    return super.request<TData>({ ...opts, uri: rewritten.href });
  }
}

export function createSmsChannel(options: SmsChannelOptions): NotificationChannel {
  const client = twilio(options.accountSid, options.authToken, {
    httpClient: options.baseUrl ? new BaseUrlRequestClient(new URL(options.baseUrl)) : undefined,
  });
  return {
    name: 'sms',
    async send(message, recipients) {
      const to = recipients?.length ? recipients : options.to;
      if (!to.length) throw new Error('No SMS recipient configured');
      const body = message.subject ? `${message.subject}: ${message.text}` : message.text;
      for (const number of to) await client.messages.create({ from: options.from, to: number, body });
    },
  };
}
