import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingLookup } from '../src/index.js';
import {
  createEmailChannel,
  createNotifier,
  createSmsChannel,
  createTelegramChannel,
  SmtpHostNotAllowedError,
} from '../src/notifications/index.js';
import {
  startHttpRecorder,
  startSmtpStandIn,
  startTelegramStandIn,
  startTwilioStandIn,
  type SmtpStandIn,
} from '../src/testing/index.js';

/** The SMTP stand-in listens on loopback: the channels that reach it allow private addresses. */
const onLoopback = { allowPrivate: true };

describe('notification channels against real local peers', () => {
  let smtp: SmtpStandIn;
  beforeAll(async () => {
    smtp = await startSmtpStandIn({ credentials: { username: 'mailer', password: 'secret' } });
  });

  afterAll(async () => {
    await smtp?.close();
  });

  it('sends an email through a real SMTP server with authentication', async () => {
    const email = createEmailChannel({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: 'mailer',
      pass: 'secret',
      from: 'licenses@example.com',
      to: ['admin@example.com'],
      outgoing: onLoopback,
    });
    await email.send({ subject: 'License expiring', text: 'ABC-123 expires tomorrow' });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]).toMatchObject({ from: 'licenses@example.com', to: ['admin@example.com'], user: 'mailer' });
    expect(smtp.mails[0]!.raw).toContain('Subject: License expiring');
    expect(smtp.mails[0]!.raw).toContain('ABC-123 expires tomorrow');
  });

  it('rejects when the SMTP server refuses the credentials', async () => {
    const email = createEmailChannel({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: 'mailer',
      pass: 'wrong',
      from: 'a@example.com',
      to: ['b@example.com'],
      outgoing: onLoopback,
    });
    await expect(email.send({ subject: 's', text: 't' })).rejects.toThrow();
  });

  it('sends an SMS through the twilio client to a local server standing in for Twilio', async () => {
    const twilioApi = await startTwilioStandIn();
    try {
      const accountSid = `AC${'1'.repeat(32)}`;
      const sms = createSmsChannel({
        accountSid,
        authToken: 'token',
        from: '+15550000000',
        to: ['+15551112222'],
        baseUrl: twilioApi.url,
      });
      await sms.send({ subject: 'Violation', text: 'IP limit exceeded on ABC-1' });
      expect(twilioApi.requests).toHaveLength(1);
      const [request] = twilioApi.requests;
      expect(request!.method).toBe('POST');
      expect(request!.path).toBe(`/2010-04-01/Accounts/${accountSid}/Messages.json`);
      expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${accountSid}:token`).toString('base64')}`);
      const form = new URLSearchParams(request!.body);
      expect(form.get('To')).toBe('+15551112222');
      expect(form.get('From')).toBe('+15550000000');
      expect(form.get('Body')).toBe('Violation: IP limit exceeded on ABC-1');
    } finally {
      await twilioApi.close();
    }
  });

  it('sends a Telegram message through node-telegram-bot-api to a local server standing in for the Bot API', async () => {
    const telegramApi = await startTelegramStandIn();
    try {
      const telegram = createTelegramChannel({ token: '123:abc', chatId: '42', baseApiUrl: telegramApi.url });
      await telegram.send({ subject: 'Anomaly', text: 'ABC-1 used from 30 IPs' });
      expect(telegramApi.requests).toHaveLength(1);
      expect(telegramApi.requests[0]!.path).toBe('/bot123:abc/sendMessage');
      const form = new URLSearchParams(telegramApi.requests[0]!.body);
      expect(form.get('chat_id')).toBe('42');
      expect(form.get('text')).toBe('Anomaly\n\nABC-1 used from 30 IPs');
    } finally {
      await telegramApi.close();
    }
  });

  it('routes a kind only to its configured channels and keeps going when one fails', async () => {
    const telegramApi = await startTelegramStandIn();
    try {
      const before = smtp.mails.length;
      const notifier = createNotifier({
        channels: {
          email: createEmailChannel({
            host: '127.0.0.1',
            port: smtp.port,
            secure: false,
            from: 'a@example.com',
            to: ['ops@example.com'],
            outgoing: onLoopback,
          }),
          telegram: createTelegramChannel({ token: '1:x', chatId: '1', baseApiUrl: telegramApi.url }),
          sms: createSmsChannel({
            accountSid: `AC${'2'.repeat(32)}`,
            authToken: 't',
            from: '+1',
            to: ['+2'],
            baseUrl: 'http://127.0.0.1:1',
          }),
        },
        routing: { anomaly: ['sms', 'telegram'], security: ['email'], custom: [] },
      });
      expect(await notifier.notify('anomaly', { subject: 'Anomaly', text: 'x' })).toEqual(['sms', 'telegram']);
      expect(telegramApi.requests).toHaveLength(1);
      expect(smtp.mails.length).toBe(before);
      await notifier.notify('security', { subject: 'Failed login', text: 'y' });
      expect(smtp.mails.length).toBe(before + 1);
      expect(await notifier.notify('custom', { subject: 'c', text: 'c' })).toEqual([]);
      await expect(notifier.sendVia('sms', { subject: 's', text: 't' })).rejects.toThrow();
    } finally {
      await telegramApi.close();
    }
  });

  it("a provider's failure is a plain error with its message, without the request (which holds the secret)", async () => {
    const refusing = await startHttpRecorder((_request, _index, res) => {
      res
        .writeHead(401, { 'Content-Type': 'application/json' })
        .end('{"ok":false,"error_code":401,"description":"Unauthorized"}');
    });
    try {
      const token = '4242:never-in-an-error-token';
      const telegram = createTelegramChannel({ token, chatId: '1', baseApiUrl: refusing.url });
      const telegramError: unknown = await telegram.send({ subject: 's', text: 't' }).catch((error: unknown) => error);
      expect(telegramError).toBeInstanceOf(Error);
      expect((telegramError as Error).message).toBe('ETELEGRAM: 401 Unauthorized');
      expect(JSON.stringify(telegramError, Object.getOwnPropertyNames(telegramError))).not.toContain(token);

      const authToken = 'never-in-an-error-sms-token';
      const sms = createSmsChannel({
        accountSid: `AC${'3'.repeat(32)}`,
        authToken,
        from: '+15550000000',
        to: ['+15551112222'],
        baseUrl: refusing.url,
      });
      const smsError: unknown = await sms.send({ subject: 's', text: 't' }).catch((error: unknown) => error);
      expect((smsError as Error).message).toBe('Twilio answered HTTP 401');
      expect(JSON.stringify(smsError, Object.getOwnPropertyNames(smsError))).not.toContain(authToken);

      const email = createEmailChannel({
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        user: 'mailer',
        pass: 'wrong-never-in-an-error',
        from: 'a@example.com',
        to: ['b@example.com'],
        outgoing: onLoopback,
      });
      const emailError: unknown = await email.send({ subject: 's', text: 't' }).catch((error: unknown) => error);
      expect((emailError as Error).message).toMatch(/Invalid/);
      expect(JSON.stringify(emailError, Object.getOwnPropertyNames(emailError))).not.toContain(
        'wrong-never-in-an-error',
      );
    } finally {
      await refusing.close();
    }
  });
});

describe('the email channel connects only to an address that was checked', () => {
  let smtp: SmtpStandIn;
  beforeAll(async () => {
    smtp = await startSmtpStandIn();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  /** DNS as the test wants it, counting the questions: these names resolve to these addresses, nothing else resolves. */
  const fakeDns = (table: Record<string, string[]>) => {
    const asked: string[] = [];
    const lookup: OutgoingLookup = (hostname) => {
      asked.push(hostname);
      const addresses = table[hostname];
      if (!addresses)
        return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
      return Promise.resolve(
        addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    };
    return { lookup, asked };
  };
  const emailTo = (
    host: string,
    outgoing: { allowPrivate: boolean; lookup?: OutgoingLookup },
    port = smtp.port,
    secure = false,
  ) => createEmailChannel({ host, port, secure, from: 'licenses@example.com', to: ['ops@example.com'], outgoing });

  it('a name is resolved once, by the lookup given, and the message goes to the address it gave', async () => {
    const dns = fakeDns({ 'smtp.example.test': ['127.0.0.1'] });
    const before = smtp.mails.length;
    // The system's DNS knows no `.test` name: only the lookup given can have led the connection to the stand-in.
    await emailTo('smtp.example.test', { allowPrivate: true, lookup: dns.lookup }).send({
      subject: 'Hello',
      text: 'through a checked address',
    });
    expect(smtp.mails.length).toBe(before + 1);
    expect(smtp.mails.at(-1)!.raw).toContain('through a checked address');
    expect(dns.asked).toEqual(['smtp.example.test']);
  });

  it.each([
    '127.0.0.1',
    'localhost',
    'mail.localhost',
    '10.0.0.5',
    '169.254.169.254',
    '[::1]',
    '::1',
    '[::127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '[fec0::1]',
    '2130706433',
    '0x7f.1',
    'loopback.example.test',
    'mixed.example.test',
    'compat.example.test',
  ])('%s is refused before any connection unless private addresses are allowed', async (host) => {
    const dns = fakeDns({
      'loopback.example.test': ['127.0.0.1'],
      'mixed.example.test': ['93.184.215.14', '10.1.2.3'],
      'compat.example.test': ['::7f00:1'],
    });
    const before = smtp.mails.length;
    const refused: unknown = await emailTo(host, { allowPrivate: false, lookup: dns.lookup })
      .send({ subject: 's', text: 't' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SmtpHostNotAllowedError);
    expect((refused as Error).message).toBe('SMTP host not allowed');
    expect(smtp.mails.length).toBe(before);
  });

  it('over TLS, the connection to the checked address names the host (SNI and the certificate check)', async () => {
    const serverNames: string[] = [];
    // A TLS server with no certificate: it hears the name the client asks for, then ends the handshake.
    const server = tls.createServer({
      SNICallback: (name, callback) => {
        serverNames.push(name);
        callback(new Error('no certificate here'));
      },
    });
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const dns = fakeDns({ 'smtp.example.test': ['127.0.0.1'] });
      await expect(
        emailTo('smtp.example.test', { allowPrivate: true, lookup: dns.lookup }, port, true).send({
          subject: 's',
          text: 't',
        }),
      ).rejects.toThrow();
      expect(serverNames).toEqual(['smtp.example.test']);
      expect(dns.asked).toEqual(['smtp.example.test']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
