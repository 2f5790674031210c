import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { startTestSite, type TestSite } from './helpers.js';

const lang = (html: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(html)?.slice(1, 3);

describe(`page languages (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let slug: string;
  beforeAll(async () => {
    site = await startTestSite();
    slug = await site.createPaste({ content: 'hello', title: 'Greeting' });
  });
  afterAll(() => site.close());

  it('is English without Accept-Language or cookie', async () => {
    const res = await site.http.get('/').expect(200);
    expect(lang(res.text)).toEqual(['en', 'ltr']);
    expect(res.text).toContain('New paste');
  });

  it('follows Accept-Language, by region too (de-AT → de)', async () => {
    const res = await site.http.get('/').set('Accept-Language', 'de-AT,de;q=0.9,en;q=0.5').expect(200);
    expect(lang(res.text)).toEqual(['de', 'ltr']);
    expect(res.text).toContain('Neuer Paste');
    expect(res.text).toContain('Zum Inhalt springen');
  });

  it('lets the switcher cookie beat the header', async () => {
    const res = await site.http.get('/').set('Accept-Language', 'de').set('Cookie', 'lang=fr').expect(200);
    expect(lang(res.text)).toEqual(['fr', 'ltr']);
  });

  it('sets right to left for Arabic, on pages, paste views and error pages alike', async () => {
    for (const path of ['/', `/paste/${slug}`, '/no/such/page']) {
      const res = await site.http.get(path).set('Accept-Language', 'ar');
      expect({ path, lang: lang(res.text) }).toEqual({ path, lang: ['ar', 'rtl'] });
    }
  });

  it('says pages vary by Accept-Language and Cookie, and API answers do not', async () => {
    const page = await site.http.get(`/paste/${slug}`).expect(200);
    expect(page.headers.vary).toMatch(/Accept-Language/);
    expect(page.headers.vary).toMatch(/Cookie/);
    const api = await site.http.post('/api/paste').send({ content: 'x' }).expect(200);
    expect(api.headers.vary ?? '').not.toMatch(/Accept-Language/);
  });

  it('keeps API error texts in English', async () => {
    const res = await site.http.post('/api/paste').set('Accept-Language', 'de').send({ content: '' }).expect(400);
    const english = await site.http.post('/api/paste').send({ content: '' }).expect(400);
    expect(res.body.error).toMatch(/^[\x20-\x7e]+$/);
    expect(res.body).toEqual(english.body);
  });

  it('/language sets the cookie for a year and returns to the local path', async () => {
    const res = await site.http.get(`/language?lang=ja&returnTo=${encodeURIComponent(`/paste/${slug}?x=1`)}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/paste/${slug}?x=1`);
    const cookie = res.headers['set-cookie']![0]!;
    expect(cookie).toMatch(/^lang=ja;/);
    expect(cookie).toMatch(/Max-Age=31536000/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const next = await site.http.get(`/paste/${slug}`).set('Cookie', 'lang=ja').expect(200);
    expect(lang(next.text)).toEqual(['ja', 'ltr']);
  });

  it.each(['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'paste/x'])(
    '/language refuses the returnTo %j and sets no cookie',
    async (returnTo) => {
      const res = await site.http.get(`/language?lang=de&returnTo=${encodeURIComponent(returnTo)}`).expect(400);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers.location).toBeUndefined();
    },
  );

  it('/language refuses a language it does not speak', async () => {
    const res = await site.http.get('/language?lang=xx&returnTo=/').expect(400);
    expect(res.text).toContain('en, de, fr, es, ja, ar');
  });

  it('the footer links every language to /language with this page to return to', async () => {
    const res = await site.http.get(`/paste/${slug}`).set('Accept-Language', 'es').expect(200);
    const back = encodeURIComponent(`/paste/${slug}`);
    for (const [code, name] of [
      ['en', 'English'],
      ['de', 'Deutsch'],
      ['fr', 'Français'],
      ['es', 'Español'],
      ['ja', '日本語'],
      ['ar', 'العربية'],
    ])
      expect(res.text).toMatch(
        new RegExp(`href="/language\\?lang=${code}&amp;returnTo=${back}" data-language-switch[^>]*>${name}</a>`),
      );
    expect(res.text).toMatch(/lang="es"[^>]*aria-current="true">Español</);
  });
});
