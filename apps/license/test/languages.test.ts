import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { startSmtpStandIn, type SmtpStandIn } from '@app/events/testing';
import { documentOf, textOf } from '@app/ui/testing/dom';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// The license service's pages and the emails it sends from the console follow the visitor's
// language (Accept-Language, then the switcher's cookie); the API's JSON stays the spec's English.
// That every language has every key of en.json is packages/ui's locales test.

describe(`pages in the visitor's language (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  let smtp: SmtpStandIn;

  beforeAll(async () => {
    smtp = await startSmtpStandIn();
    t = await buildTestApp({ env: { SMTP_ALLOW_PRIVATE: 'true' } });
    admin = await t.admin();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const get = (url: string, language?: string, session: Session = admin) => {
    const request = t.http.get(url).set('Cookie', session.cookie);
    return language ? request.set('Accept-Language', language) : request;
  };

  it('answers the dashboard in German for Accept-Language: de, with <html lang="de">, and in English without one', async () => {
    const german = await get('/', 'de-DE,de;q=0.9,en;q=0.5');
    expect(german.status).toBe(200);
    const document = documentOf(german.text);
    expect(document.documentElement.getAttribute('lang')).toBe('de');
    expect(document.documentElement.getAttribute('dir')).toBe('ltr');
    expect(document.querySelector('h1')?.textContent).toBe('Admin-Übersicht');
    expect(document.title).toBe('Admin-Übersicht · License Service');
    expect([...document.querySelectorAll('nav.admin-nav a')].map((link) => link.textContent)).toEqual([
      'Übersicht',
      'Produkte',
      'Kunden',
      'Lizenzen',
      'Automatisierungen',
      'Webhooks',
      'Prüfprotokoll',
      'Exporte',
      'Einstellungen',
    ]);
    expect(german.headers.vary).toMatch(/Accept-Language/i);

    const english = await get('/');
    expect(documentOf(english.text).documentElement.getAttribute('lang')).toBe('en');
    expect(documentOf(english.text).querySelector('h1')?.textContent).toBe('Admin dashboard');
  });

  it("writes a license page's labels, state, type, dates and counts in German", async () => {
    const license = await t.createLicense({
      licenseType: 'trial',
      ipLimit: 1234,
      expiresAt: new Date(Date.now() + 10.5 * 86_400_000),
    });
    const res = await get(`/licenses/${license._id}`, 'de');
    expect(res.status).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain('Schlüssel kopieren');
    expect(text).toContain('Lizenzdatei herunterladen');
    expect(text).toContain('Kulanzzeit und Ablauf');
    expect(text).toContain('läuft in 10 Tagen ab');
    // German digit grouping from Intl, not en-US's comma.
    expect(text).toContain('1.234');
    const document = documentOf(res.text);
    expect(document.querySelector('[data-state]')?.textContent).toBe('aktiv');
    expect(document.querySelector('dd.type')?.textContent).toBe('Test');
  });

  it('keeps the API JSON in English whatever the Accept-Language', async () => {
    const res = await t.http
      .get('/api/licenses/00000000-0000-4000-8000-000000000000')
      .set('Cookie', admin.cookie)
      .set('Accept-Language', 'de');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('License not found');
  });

  it('remembers the switcher\'s choice in a cookie over Accept-Language, and sets dir="rtl" for Arabic', async () => {
    const switched = await t.http.get('/language?lang=ar&returnTo=/licenses').set('Cookie', admin.cookie);
    expect(switched.status).toBe(303);
    expect(switched.headers.location).toBe('/licenses');
    const languageCookie = (switched.headers['set-cookie'] as unknown as string[]).find((cookie) =>
      cookie.startsWith('lang='),
    )!;
    const cookie = `${admin.cookie}; ${languageCookie.split(';')[0]}`;
    const res = await t.http.get('/licenses').set('Cookie', cookie).set('Accept-Language', 'fr');
    const document = documentOf(res.text);
    expect(document.documentElement.getAttribute('lang')).toBe('ar');
    expect(document.documentElement.getAttribute('dir')).toBe('rtl');
    expect(document.querySelector('h1')?.textContent).toBe('التراخيص');
  });

  it("answers the sign-in page, the not-found page and a sign-in error in the visitor's language", async () => {
    const signIn = await t.http.get('/?error=auth_failed').set('Accept-Language', 'es');
    expect(textOf(signIn.text)).toContain('No se pudo iniciar sesión. Inténtelo de nuevo.');
    const missing = await t.http.get('/no-such-page').set('Cookie', admin.cookie).set('Accept-Language', 'ja');
    expect(missing.status).toBe(404);
    expect(documentOf(missing.text).querySelector('h1')?.textContent).toBe('ページが見つかりません');
  });

  it("sends the console's test email in the admin's language (German), through a real SMTP server", async () => {
    const post = (url: string, fields: Record<string, string>) =>
      t.http
        .post(url)
        .set('Cookie', admin.cookie)
        .set('Accept-Language', 'de')
        .type('form')
        .send({ _csrf: admin.csrfToken, ...fields });
    const saved = await post('/webhooks/channels/email', {
      enabled: 'on',
      host: '127.0.0.1',
      port: String(smtp.port),
      user: '',
      pass: '',
      from: 'Licenses <licenses@example.com>',
      to: 'ops@example.com',
    });
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    const before = smtp.mails.length;
    const tested = await post('/webhooks/channels/email/test', { recipient: 'tester@example.com' });
    expect(tested.status).toBe(303);
    expect(smtp.mails.length).toBe(before + 1);
    const mail = smtp.mails.at(-1)!;
    expect(mail.to).toEqual(['tester@example.com']);
    expect(mail.raw).toContain('Subject: Testnachricht vom Lizenzdienst');
    expect(mail.raw).not.toContain('Test message from the License Service');
  });
});
