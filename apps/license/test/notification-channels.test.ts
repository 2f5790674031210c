import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import type { OutgoingLookup } from '@app/events';
import {
  eventually,
  startSmtpStandIn,
  startTelegramStandIn,
  startTwilioStandIn,
  type SmtpStandIn,
} from '@app/events/testing';
import { createLicenseLogger } from '../src/common/logger.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

// The notification channels page (/webhooks/channels): settings stored in the database over the
// environment's, secrets never shown back, a "Send test" that reaches real local servers standing
// in for the SMTP server, Twilio and Telegram, and the notifier using the new settings at once.

const smtpUser = 'mailer';
const smtpPass = 'smtp-pass-never-shown-9876';
const accountSid = `AC${'c'.repeat(32)}`;
const twilioToken = 'twilio-token-never-shown-5555';
const botToken = '4242:telegram-token-never-shown-7777';
const secrets = [smtpPass, twilioToken, botToken, 'wrong-password-never-shown-1111'];

function logCapture() {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text.push(String(chunk));
      callback();
    },
  });
  return { logger: createLicenseLogger({ level: 'trace', destination }), all: () => text.join('') };
}

describe(`notification channels configured in the admin console (${testDatabaseBackend()})`, () => {
  const log = logCapture();
  let t: TestApp;
  let other: TestApp;
  let admin: Session;
  let smtp: SmtpStandIn;
  let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
  let telegram: Awaited<ReturnType<typeof startTelegramStandIn>>;

  beforeAll(async () => {
    [smtp, twilio, telegram] = await Promise.all([
      startSmtpStandIn({ credentials: { username: smtpUser, password: smtpPass } }),
      startTwilioStandIn(),
      startTelegramStandIn(),
    ]);
    // The environment gives the starting values: no SMTP host (email off), a sender and recipient.
    // SMTP_ALLOW_PRIVATE lets the console's SMTP host be the stand-in on loopback.
    const env = {
      SMTP_FROM: 'Env Sender <env-sender@example.com>',
      NOTIFY_EMAIL_TO: 'env-ops@example.com',
      SMTP_ALLOW_PRIVATE: 'true',
      TWILIO_BASE_URL: twilio.url,
      TELEGRAM_API_URL: telegram.url,
      NOTIFY_LICENSE_VIOLATION: 'telegram,email',
      NOTIFY_ANOMALY: 'email,sms',
    };
    t = await buildTestApp({ env, logger: log.logger });
    // A second instance on the same database: it learns of changes from the settings table.
    other = await buildTestApp({ env, database: t.database });
    admin = await t.admin();
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await t?.close();
    await Promise.all([smtp?.close(), twilio?.close(), telegram?.close()]);
  });

  const page = async (session: Session = admin) => {
    const res = await t.http.get('/webhooks/channels').set('Cookie', session.cookie);
    expect(res.status).toBe(200);
    return res.text;
  };
  /** A form post as a browser sends it (urlencoded), with the session's token unless told otherwise. */
  const post = (path: string, fields: Record<string, string>, session: Session = admin, csrf = true) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send(csrf ? { _csrf: session.csrfToken, ...fields } : fields);
  /** Posts, expects the redirect to the page, and returns the page's flash messages. */
  const postAndFollow = async (path: string, fields: Record<string, string>) => {
    const res = await post(path, fields);
    expect(res.status, res.text.slice(0, 500)).toBe(303);
    expect(res.headers.location).toMatch(/^\/webhooks\/channels#/);
    const html = await page();
    return {
      html,
      flash: [...documentOf(html).querySelectorAll('.alert')].map((alert) => alert.textContent?.trim() ?? ''),
    };
  };
  const emailForm = (overrides: Record<string, string> = {}) => ({
    enabled: 'on',
    host: '127.0.0.1',
    port: String(smtp.port),
    user: smtpUser,
    pass: '',
    from: 'Licenses <licenses@example.com>',
    to: 'ops@example.com',
    ...overrides,
  });
  const auditRows = async (resourceId: string) =>
    (
      await t.database.pool.query<{ action: string; success: boolean; changes: unknown }>(
        `SELECT action, success, changes FROM audit_logs WHERE resource_type = 'notification' AND resource_id = $1 ORDER BY created_at`,
        [resourceId],
      )
    ).rows;

  it("shows the three channels with the environment's starting values, labelled fields and the Webhooks sub-navigation", async () => {
    const html = await page();
    const document = documentOf(html);
    expect(document.querySelector('nav.admin-nav a[aria-current="page"]')?.getAttribute('href')).toBe('/webhooks');
    expect(
      [...document.querySelectorAll('nav[aria-label="Webhooks"] a')].map((link) => [
        link.textContent,
        link.getAttribute('href'),
        link.getAttribute('aria-current'),
      ]),
    ).toEqual([
      ['Endpoints', '/webhooks', null],
      ['Delivery log', '/webhooks/deliveries', null],
      ['Notification channels', '/webhooks/channels', 'page'],
    ]);
    expect([...document.querySelectorAll('section.channel h2')].map((heading) => heading.textContent)).toEqual([
      'Email',
      'SMS',
      'Telegram',
    ]);
    const email = document.querySelector('section#email')!;
    expect(email.querySelector<HTMLInputElement>('input[name="to"]')?.value).toBe('env-ops@example.com');
    expect(email.querySelector<HTMLInputElement>('input[name="from"]')?.value).toBe(
      'Env Sender <env-sender@example.com>',
    );
    expect(email.querySelector<HTMLInputElement>('input[name="enabled"]')?.checked).toBe(false);
    expect(email.textContent).toContain('From the environment');
    // Every field sits inside its visible label; every form carries the CSRF token.
    for (const input of document.querySelectorAll('section.channel input:not([type="hidden"])')) {
      expect(input.closest('label')?.textContent?.trim().length, input.getAttribute('name') ?? '').toBeGreaterThan(0);
    }
    const forms = [...document.querySelectorAll('section.channel form')];
    expect(forms).toHaveLength(6);
    for (const form of forms)
      expect(form.querySelector('input[name="_csrf"]')?.getAttribute('value')).toBe(admin.csrfToken);
    expect(textOf(html)).toContain('Receives: license violation, anomaly.');
  });

  it('saves email settings pointing to the SMTP stand-in; "Send test" delivers a real email; the password is never shown back', async () => {
    const saved = await postAndFollow('/webhooks/channels/email', emailForm({ pass: smtpPass }));
    expect(saved.flash).toContain('Email settings saved.');
    expect(saved.html).not.toContain(smtpPass);
    expect(saved.html).not.toContain(smtpPass.slice(0, -4));
    expect(textOf(saved.html)).toContain('Currently set, ends in …9876. Leave blank to keep it.');
    expect(documentOf(saved.html).querySelector<HTMLInputElement>('section#email input[name="pass"]')?.value).toBe('');
    expect(documentOf(saved.html).querySelector('section#email')?.textContent).toContain('Saved in the console');

    const before = smtp.mails.length;
    const tested = await postAndFollow('/webhooks/channels/email/test', { recipient: 'tester@example.com' });
    expect(tested.flash).toContain('Test email sent to tester@example.com.');
    const mail = smtp.mails.at(-1)!;
    expect(smtp.mails.length).toBe(before + 1);
    expect(mail.to).toEqual(['tester@example.com']);
    expect(mail.user).toBe(smtpUser);
    expect(mail.raw).toContain('Test message from the License Service');

    // Audited as runtime-config's writes are, without the password.
    const rows = await auditRows('email');
    expect(rows.at(-1)).toMatchObject({ action: 'update', success: true });
    expect(JSON.stringify(rows)).not.toContain(smtpPass);
    expect(rows.at(-1)!.changes).toMatchObject({
      after: { host: '127.0.0.1', pass: '(set)', to: ['ops@example.com'] },
    });
    expect(await auditRows('email:test')).toEqual([expect.objectContaining({ action: 'create', success: true })]);
  });

  it('a blank password keeps the saved one; a changed host needs it typed again', async () => {
    const saved = await postAndFollow(
      '/webhooks/channels/email',
      emailForm({ to: 'ops@example.com, second@example.com' }),
    );
    expect(saved.flash).toContain('Email settings saved.');
    // The test goes to the configured recipients by default, still signed in with the kept password.
    const tested = await postAndFollow('/webhooks/channels/email/test', { recipient: '' });
    expect(tested.flash).toContain('Test email sent to ops@example.com, second@example.com.');
    expect(smtp.mails.at(-1)).toMatchObject({ to: ['ops@example.com', 'second@example.com'], user: smtpUser });

    const moved = await post('/webhooks/channels/email', emailForm({ host: 'localhost' }));
    expect(moved.status).toBe(400);
    expect(textOf(moved.text)).toContain('SMTP password: the SMTP host changed, so type its password again');
    expect(documentOf(moved.text).querySelector<HTMLInputElement>('section#email input[name="host"]')?.value).toBe(
      'localhost',
    );
    expect((await auditRows('email')).at(-1)).toMatchObject({ action: 'update', success: false });
  });

  it('refuses an enabled channel without its required fields, saying which, and keeps what was stored', async () => {
    const res = await post('/webhooks/channels/telegram', { enabled: 'on', botToken: '', chatId: '' });
    expect(res.status).toBe(400);
    expect(textOf(res.text)).toContain('Telegram bot token: required while the channel is enabled.');
    expect(textOf(res.text)).toContain('Telegram chat id: required while the channel is enabled.');
    const hostile = await post(
      '/webhooks/channels/email',
      emailForm({ host: '"><script>alert(1)</script>', to: '<img src=x onerror=alert(1)>' }),
    );
    expect(hostile.status).toBe(400);
    expect(hostile.text).not.toContain('<script>alert(1)');
    expect(hostile.text).not.toContain('<img src=x');
    expect(documentOf(hostile.text).querySelector<HTMLInputElement>('section#email input[name="host"]')?.value).toBe(
      '"><script>alert(1)</script>',
    );
    const bad = await post('/webhooks/channels/sms', {
      enabled: 'on',
      accountSid: 'nope',
      authToken: 'x',
      from: '+15550001111',
      to: '12345',
    });
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toContain('Twilio account SID: "AC" and 32 hexadecimal digits.');
    expect(textOf(bad.text)).toContain('SMS recipients: not a number in international format (+15550001234): 12345.');
  });

  it("a failed test email says only that delivery failed; the SMTP server's answer goes to the server log, without the secret", async () => {
    await postAndFollow('/webhooks/channels/email', emailForm({ pass: 'wrong-password-never-shown-1111' }));
    const failed = await postAndFollow('/webhooks/channels/email/test', { recipient: 'tester@example.com' });
    expect(failed.flash.filter((text) => text.startsWith('Test email failed'))).toEqual([
      'Test email failed: the message could not be delivered.',
    ]);
    expect(textOf(failed.html)).not.toMatch(/Invalid|535|authentication/i);
    expect(failed.html).not.toContain('wrong-password-never-shown-1111');
    expect(failed.html).not.toMatch(/\n\s+at /);
    expect((await auditRows('email:test')).at(-1)).toMatchObject({
      success: false,
      changes: { after: { error: 'the message could not be delivered.' } },
    });
    expect(
      log
        .all()
        .split('\n')
        .some((line) => line.includes('test email failed') && line.includes('Invalid')),
    ).toBe(true);
    // A notification that fails the same way is logged (by the queue) with the provider's error only.
    const license = await t.createLicense({ hwidLimit: 1 });
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: 'one' });
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: 'two' });
    await eventually(() =>
      log
        .all()
        .split('\n')
        .some((line) => line.includes('job failed') && line.includes('Invalid')),
    );
    expect(log.all()).not.toContain('wrong-password-never-shown-1111');
    await postAndFollow('/webhooks/channels/email', emailForm({ pass: smtpPass }));
  });

  it('SMS settings pointing to the Twilio stand-in: "Send test" reaches it with the saved sender and token', async () => {
    const saved = await postAndFollow('/webhooks/channels/sms', {
      enabled: 'on',
      accountSid,
      authToken: twilioToken,
      from: '+15550001111',
      to: '+15559990000',
    });
    expect(saved.flash).toContain('SMS settings saved.');
    expect(saved.html).not.toContain(twilioToken);
    const tested = await postAndFollow('/webhooks/channels/sms/test', { recipient: '+15557770000' });
    expect(tested.flash).toContain('Test SMS sent to +15557770000.');
    const request = twilio.requests.at(-1)!;
    expect(request.path).toBe(`/2010-04-01/Accounts/${accountSid}/Messages.json`);
    const body = new URLSearchParams(request.body);
    expect(body.get('To')).toBe('+15557770000');
    expect(body.get('From')).toBe('+15550001111');
    expect(body.get('Body')).toContain('Test message from the License Service');
    expect(request.headers.authorization).toBe(
      `Basic ${Buffer.from(`${accountSid}:${twilioToken}`).toString('base64')}`,
    );
  });

  it('Telegram settings pointing to the Telegram stand-in: "Send test" reaches it with the saved token and chat', async () => {
    const saved = await postAndFollow('/webhooks/channels/telegram', { enabled: 'on', botToken, chatId: '-100200' });
    expect(saved.flash).toContain('Telegram settings saved.');
    expect(saved.html).not.toContain(botToken);
    expect(saved.html).not.toContain(botToken.slice(0, -4));
    const tested = await postAndFollow('/webhooks/channels/telegram/test', { recipient: '' });
    expect(tested.flash).toContain('Test Telegram message sent to -100200.');
    const request = telegram.requests.at(-1)!;
    expect(request.path).toBe(`/bot${botToken}/sendMessage`);
    expect(new URLSearchParams(request.body).get('chat_id')).toBe('-100200');
  });

  it('a license event that notifies uses the new settings without a restart, in this instance and the other', async () => {
    const violation = async (app: TestApp) => {
      const license = await app.createLicense({ hwidLimit: 1 });
      await app.http.post('/api/license/validate').send({ key: license.key, ip: '10.7.0.1', hwid: 'one' });
      const blocked = await app.http
        .post('/api/license/validate')
        .send({ key: license.key, ip: '10.7.0.1', hwid: 'two' });
      expect(blocked.body.error).toBe('HWID limit exceeded');
      return license.key;
    };
    const sentTo = (key: string) =>
      telegram.requests
        .filter((request) => (new URLSearchParams(request.body).get('text') ?? '').includes(key))
        .map((request) => new URLSearchParams(request.body).get('chat_id'));

    const delivered = (key: string) =>
      eventually(() => {
        const chats = sentTo(key);
        return chats.length > 0 ? chats : undefined;
      });

    const first = await violation(t);
    expect(await delivered(first)).toEqual(['-100200']);

    await postAndFollow('/webhooks/channels/telegram', { enabled: 'on', botToken: '', chatId: '-100300' });
    const second = await violation(t);
    expect(await delivered(second)).toEqual(['-100300']);
    // The other instance picks the change up from the settings table (polled every 2 seconds).
    // A message still on its way when the wait ends is no failure here: the next violation tries again.
    const third = await eventually(
      async () => {
        const key = await violation(other);
        const chats = await delivered(key).catch(() => [] as (string | null)[]);
        return chats[0] === '-100300' ? key : undefined;
      },
      45_000,
      500,
    );
    expect(sentTo(third)).toEqual(['-100300']);

    // Switched off: the event sends nothing.
    await postAndFollow('/webhooks/channels/telegram', { botToken: '', chatId: '-100300' });
    const fourth = await violation(t);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sentTo(fourth)).toEqual([]);
  }, 120_000);

  it('sends visitors to sign in, refuses non-admins, and refuses writes without the CSRF token', async () => {
    const visitor = await t.http.get('/webhooks/channels');
    expect(visitor.status).toBe(303);
    expect(visitor.headers.location).toBe('/?returnTo=%2Fwebhooks%2Fchannels');
    const anonymousWrite = await t.http
      .post('/webhooks/channels/email')
      .type('form')
      .send(emailForm({ host: 'evil.example.com' }));
    expect(anonymousWrite.status).toBe(303);

    const { session } = await t.customer();
    // A customer is sent to their portal (customer-console-addresses.test.ts).
    expect((await t.http.get('/webhooks/channels').set('Cookie', session.cookie)).status).toBe(303);
    expect(
      (await post('/webhooks/channels/email', emailForm({ host: 'evil.example.com', pass: 'x' }), session)).status,
    ).toBe(403);
    expect((await post('/webhooks/channels/email/test', { recipient: 'evil@example.com' }, session)).status).toBe(403);

    const before = smtp.mails.length;
    for (const fields of [
      emailForm({ host: 'evil.example.com', pass: 'x' }),
      { ...emailForm({ host: 'evil.example.com', pass: 'x' }), _csrf: 'not-the-token' },
    ]) {
      expect((await post('/webhooks/channels/email', fields, admin, false)).status).toBe(403);
    }
    expect((await post('/webhooks/channels/email/test', { recipient: 'evil@example.com' }, admin, false)).status).toBe(
      403,
    );
    expect(smtp.mails.length).toBe(before);
    expect(documentOf(await page()).querySelector<HTMLInputElement>('section#email input[name="host"]')?.value).toBe(
      '127.0.0.1',
    );
  });

  it('the logs (at trace level) never hold a secret that was saved or tried', () => {
    expect(log.all().length).toBeGreaterThan(0);
    for (const secret of secrets) expect(log.all()).not.toContain(secret);
  });
});

describe(`SMTP hosts set in the console without SMTP_ALLOW_PRIVATE (${testDatabaseBackend()})`, () => {
  const log = logCapture();
  let t: TestApp;
  let admin: Session;
  let smtp: SmtpStandIn;
  /** DNS for SMTP hosts as the tests set it: these names resolve to these addresses, nothing else resolves. */
  const dnsTable: Record<string, string[]> = {
    'internal.example.test': ['10.1.2.3'],
    'compat.example.test': ['::7f00:1'],
    'mixed.example.test': ['93.184.215.14', '192.168.0.25'],
  };
  const lookup: OutgoingLookup = (hostname) => {
    const addresses = dnsTable[hostname];
    if (!addresses)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

  beforeAll(async () => {
    smtp = await startSmtpStandIn();
    // The environment's own SMTP server is the stand-in on loopback: that host stays allowed.
    t = await buildTestApp({
      env: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), NOTIFY_EMAIL_TO: 'env-ops@example.com' },
      smtpLookup: lookup,
      logger: log.logger,
    });
    admin = await t.admin();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const post = (path: string, fields: Record<string, string>) =>
    t.http
      .post(path)
      .set('Cookie', admin.cookie)
      .type('form')
      .send({ _csrf: admin.csrfToken, ...fields });
  const emailForm = (host: string, port = smtp.port) => ({
    enabled: 'on',
    host,
    port: String(port),
    from: 'Licenses <licenses@example.com>',
    to: 'ops@example.com',
  });
  const savedHost = async () => {
    const html = (await t.http.get('/webhooks/channels').set('Cookie', admin.cookie)).text;
    return documentOf(html).querySelector<HTMLInputElement>('section#email input[name="host"]')?.value;
  };
  const sendTest = async () => {
    const res = await post('/webhooks/channels/email/test', { recipient: 'tester@example.com' });
    expect(res.status).toBe(303);
    const html = (await t.http.get('/webhooks/channels').set('Cookie', admin.cookie)).text;
    return {
      html,
      flash: [...documentOf(html).querySelectorAll('.alert')].map((alert) => alert.textContent?.trim() ?? ''),
    };
  };
  const lastAudit = async (resourceId: string) =>
    (
      await t.database.pool.query<{ success: boolean; changes: { after: Record<string, unknown> } }>(
        `SELECT success, changes FROM audit_logs WHERE resource_type = 'notification' AND resource_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [resourceId],
      )
    ).rows[0];

  it.each([
    '10.0.0.5',
    '169.254.169.254',
    '127.0.0.2',
    'localhost',
    'smtp.localhost',
    '[::1]',
    '[::127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::ffff:a9fe:a9fe]',
    '[64:ff9b::7f00:1]',
    '[fd00::25]',
    '[fec0::1]',
    '2130706433',
    'internal.example.test',
    'compat.example.test',
    'mixed.example.test',
  ])(
    'saving %s as the SMTP host answers 400 SMTP host not allowed, shown in the form, and stores nothing',
    async (host) => {
      const res = await post('/webhooks/channels/email', emailForm(host));
      expect(res.status).toBe(400);
      const form = documentOf(res.text).querySelector('section#email')!;
      expect(form.textContent?.replace(/\s+/g, ' ')).toContain('SMTP host not allowed');
      expect(form.querySelector<HTMLInputElement>('input[name="host"]')?.value).toBe(host);
      expect(await lastAudit('email')).toMatchObject({
        success: false,
        changes: { after: { status: 400, error: 'SMTP host not allowed' } },
      });
      expect(await savedHost()).toBe('127.0.0.1');
    },
  );

  it("the environment's own SMTP_HOST may be saved, and a test email reaches it", async () => {
    const saved = await post('/webhooks/channels/email', emailForm('127.0.0.1'));
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    const before = smtp.mails.length;
    const tested = await sendTest();
    expect(tested.flash).toContain('Test email sent to tester@example.com.');
    expect(smtp.mails.length).toBe(before + 1);
  });

  it('a name that was public when saved and resolves to loopback when sending (DNS rebinding) is refused before connecting; the page says only that delivery failed', async () => {
    dnsTable['mail.example.test'] = ['93.184.215.14'];
    const saved = await post('/webhooks/channels/email', emailForm('mail.example.test'));
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    dnsTable['mail.example.test'] = ['127.0.0.1'];
    const before = smtp.mails.length;
    const tested = await sendTest();
    expect(tested.flash.filter((text) => text.startsWith('Test email'))).toEqual([
      'Test email failed: the message could not be delivered.',
    ]);
    expect(smtp.mails.length).toBe(before);
    expect(await lastAudit('email:test')).toMatchObject({
      success: false,
      changes: { after: { error: 'the message could not be delivered.' } },
    });
    // The reason is in the server's log, for the operator.
    expect(log.all()).toContain('host mail.example.test resolves to 127.0.0.1');
  });

  it('a refused connection reads the same as any other failure: no ECONNREFUSED, no timeout, no port', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const saved = await post('/webhooks/channels/email', emailForm('127.0.0.1', port));
    expect(saved.status).toBe(303);
    const tested = await sendTest();
    expect(tested.flash.filter((text) => text.startsWith('Test email'))).toEqual([
      'Test email failed: the message could not be delivered.',
    ]);
    expect(textOf(tested.html)).not.toMatch(/ECONNREFUSED|ETIMEDOUT|timeout|refused|127\.0\.0\.1:/i);
    expect(await lastAudit('email:test')).toMatchObject({
      success: false,
      changes: { after: { error: 'the message could not be delivered.' } },
    });
  });
});
