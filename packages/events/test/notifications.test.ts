import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel, createNotifier, createSmsChannel, createTelegramChannel } from '../src/notifications/index.js';
import { startHttpRecorder, startSmtpStandIn, startTelegramStandIn, startTwilioStandIn, type SmtpStandIn } from '../src/testing/index.js';

describe('notification channels against real local peers', () => {
  let smtp: SmtpStandIn;
  beforeAll(async () => { smtp = await startSmtpStandIn({ credentials: { username: 'mailer', password: 'secret' } }); });

  afterAll(async () => { await smtp?.close(); });

  it('sends an email through a real SMTP server with authentication', async () => {
    const email = createEmailChannel({ host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', pass: 'secret', from: 'licenses@example.com', to: ['admin@example.com'] });
    await email.send({ subject: 'License expiring', text: 'ABC-123 expires tomorrow' });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]).toMatchObject({ from: 'licenses@example.com', to: ['admin@example.com'], user: 'mailer' });
    expect(smtp.mails[0]!.raw).toContain('Subject: License expiring');
    expect(smtp.mails[0]!.raw).toContain('ABC-123 expires tomorrow');
  });

  it('rejects when the SMTP server refuses the credentials', async () => {
    const email = createEmailChannel({ host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', pass: 'wrong', from: 'a@example.com', to: ['b@example.com'] });
    await expect(email.send({ subject: 's', text: 't' })).rejects.toThrow();
  });

  it('sends an SMS through the twilio client to a local server standing in for Twilio', async () => {
    const twilioApi = await startTwilioStandIn();
    try {
      const accountSid = `AC${'1'.repeat(32)}`;
      const sms = createSmsChannel({ accountSid, authToken: 'token', from: '+15550000000', to: ['+15551112222'], baseUrl: twilioApi.url });
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
          email: createEmailChannel({ host: '127.0.0.1', port: smtp.port, secure: false, from: 'a@example.com', to: ['ops@example.com'] }),
          telegram: createTelegramChannel({ token: '1:x', chatId: '1', baseApiUrl: telegramApi.url }),
          sms: createSmsChannel({ accountSid: `AC${'2'.repeat(32)}`, authToken: 't', from: '+1', to: ['+2'], baseUrl: 'http://127.0.0.1:1' }),
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

  it('a provider\'s failure is a plain error with its message, without the request (which holds the secret)', async () => {
    const refusing = await startHttpRecorder((_request, _index, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"ok":false,"error_code":401,"description":"Unauthorized"}');
    });
    try {
      const token = '4242:never-in-an-error-token';
      const telegram = createTelegramChannel({ token, chatId: '1', baseApiUrl: refusing.url });
      const telegramError: unknown = await telegram.send({ subject: 's', text: 't' }).catch((error: unknown) => error);
      expect(telegramError).toBeInstanceOf(Error);
      expect((telegramError as Error).message).toBe('ETELEGRAM: 401 Unauthorized');
      expect(JSON.stringify(telegramError, Object.getOwnPropertyNames(telegramError))).not.toContain(token);

      const authToken = 'never-in-an-error-sms-token';
      const sms = createSmsChannel({ accountSid: `AC${'3'.repeat(32)}`, authToken, from: '+15550000000', to: ['+15551112222'], baseUrl: refusing.url });
      const smsError: unknown = await sms.send({ subject: 's', text: 't' }).catch((error: unknown) => error);
      expect((smsError as Error).message).toBe('Twilio answered HTTP 401');
      expect(JSON.stringify(smsError, Object.getOwnPropertyNames(smsError))).not.toContain(authToken);

      const email = createEmailChannel({ host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', pass: 'wrong-never-in-an-error', from: 'a@example.com', to: ['b@example.com'] });
      const emailError: unknown = await email.send({ subject: 's', text: 't' }).catch((error: unknown) => error);
      expect((emailError as Error).message).toMatch(/Invalid/);
      expect(JSON.stringify(emailError, Object.getOwnPropertyNames(emailError))).not.toContain('wrong-never-in-an-error');
    } finally {
      await refusing.close();
    }
  });
});
