import type RequestClient from 'twilio/lib/base/RequestClient.js';
import { providerError, type NotificationChannel } from './channel.js';

export interface SmsChannelOptions {
  accountSid: string;
  authToken: string;
  from: string;
  /** Default recipients (E.164 numbers). */
  to: string[];
  /** Replaces https://api.twilio.com (a proxy, or a local server standing in for Twilio in tests). */
  baseUrl?: string;
}

type TwilioModule = typeof import('twilio');

/**
 * Twilio's client has no base URL option, but takes an HTTP client: this one sends each request
 * to the same path under `baseUrl` instead of Twilio's host.
 */
function baseUrlClient(twilio: TwilioModule, baseUrl: URL): RequestClient {
  class BaseUrlRequestClient extends twilio.RequestClient {
    override request<TData>(opts: RequestClient.RequestOptions<TData>) {
      const target = new URL(opts.uri);
      const rewritten = new URL(baseUrl.pathname.replace(/\/$/, '') + target.pathname + target.search, baseUrl);
      return super.request<TData>({ ...opts, uri: rewritten.href });
    }
  }
  return new BaseUrlRequestClient();
}

export function createSmsChannel(options: SmsChannelOptions): NotificationChannel {
  // Loaded on first use: the library takes a fifth of a second to import, and most processes never send an SMS.
  let client: Promise<ReturnType<TwilioModule>> | undefined;
  const twilioClient = () =>
    (client ??= import('twilio').then(({ default: twilio }) =>
      twilio(options.accountSid, options.authToken, {
        httpClient: options.baseUrl ? baseUrlClient(twilio, new URL(options.baseUrl)) : undefined,
      }),
    ));
  return {
    name: 'sms',
    async send(message, recipients) {
      const to = recipients?.length ? recipients : options.to;
      if (!to.length) throw new Error('No SMS recipient configured');
      const body = message.subject ? `${message.subject}: ${message.text}` : message.text;
      const api = await twilioClient();
      try {
        for (const number of to) await api.messages.create({ from: options.from, to: number, body });
      } catch (error) {
        throw providerError('Twilio', error, [options.authToken]);
      }
    },
  };
}
