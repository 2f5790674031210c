import { documentOf } from '@app/ui/testing/dom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_ID, RELAXED_LIMITS, startTestSite, type TestSite } from './helpers.js';

const SCRIPT = '<script>alert(1)</script>';
const ATTRIBUTE = '"><img src=x onerror=alert(1)>';
const URL = 'javascript:alert(1)';
const HOSTILE = `${SCRIPT} ${ATTRIBUTE} ${URL}`;

/**
 * No hostile string became markup, read as a browser reads the page: no script but the site's
 * own files, no element with an event attribute, no link or source with a script URL.
 */
function expectEscaped(page: string): void {
  expect(page).not.toContain('<script>alert');
  expect(page).not.toMatch(/<img src=x/i);
  const document = documentOf(page);
  // JSON data blocks (the scripts' translated words, an envelope) are data, not scripts: each must
  // parse whole, so that nothing typed broke out of one.
  const data = [...document.querySelectorAll('script[type="application/json"]')];
  for (const block of data) expect(() => JSON.parse(block.textContent ?? '')).not.toThrow();
  const scripts = [...document.querySelectorAll('script')]
    .filter((script) => !data.includes(script))
    .map((script) => script.getAttribute('src'));
  // The site's own scripts only (the form's encryption module among them), never one from the text.
  const own = ['/static/ui/ui.js', '/static/app.js', '/static/paste-form.js'];
  expect(scripts.filter((src) => src === null || !own.includes(src))).toEqual([]);
  const attributes = [...document.querySelectorAll('*')].flatMap((element) => [...element.attributes]);
  expect(attributes.filter((attribute) => attribute.name.startsWith('on')).map((attribute) => attribute.name)).toEqual(
    [],
  );
  const urls = attributes.filter((attribute) => ['href', 'src', 'action', 'formaction'].includes(attribute.name));
  expect(
    urls.filter((attribute) => /^\s*javascript:/i.test(attribute.value)).map((attribute) => attribute.value),
  ).toEqual([]);
}

describe('every paste page escapes what visitors and the owner typed', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite();
    await site.settings.update({
      ...RELAXED_LIMITS,
      siteName: SCRIPT,
      siteDescription: HOSTILE,
      logo: URL,
      favIcon: `${ATTRIBUTE}.ico`,
    });
  });
  afterAll(() => site.close());

  it('the home page, with a hostile sign-in error code in the address', async () => {
    const page = await site.http.get(`/?error=${encodeURIComponent(HOSTILE)}`).expect(200);
    expectEscaped(page.text);
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).toContain('src="/static/logo.svg"');
  });

  it('a paste whose content is hostile, highlighted and plain', async () => {
    const slug = await site.createPaste({ content: `<p>${HOSTILE}</p>\n<a href="${URL}">x</a>` });
    for (const syntaxHighlighting of [true, false]) {
      await site.settings.update({ syntaxHighlighting });
      const page = await site.http.get(`/paste/${slug}`).expect(200);
      expectEscaped(page.text);
      expect(page.text).toContain('&lt;');
    }
  });

  it('the password form, its error, and a hostile password', async () => {
    const slug = await site.createPaste({ content: 'hidden', password: HOSTILE });
    expectEscaped((await site.http.get(`/paste/${slug}`).expect(200)).text);
    const wrong = await site.http
      .post(`/paste/${slug}/verify`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: ATTRIBUTE })
      .expect(401);
    expectEscaped(wrong.text);
    expect(wrong.text).toContain('Incorrect password');
  });

  it("the creator's page, the delete confirmation and the deleted page", async () => {
    const { cookie, csrf } = await site.pageSession();
    const created = await site.http
      .post('/api/paste')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .send({ content: HOSTILE, password: SCRIPT })
      .expect(200);
    const page = await site.http.get(`/paste/${created.body.slug}/created`).set('Cookie', cookie).expect(200);
    expectEscaped(page.text);
    expectEscaped((await site.http.get(`/paste/${created.body.slug}/delete`).expect(200)).text);
    const refused = await site.http
      .post(`/paste/${created.body.slug}/delete`)
      .type('form')
      .send({ token: HOSTILE })
      .expect(403);
    expectEscaped(refused.text);
    const deleted = await site.http
      .post(`/paste/${created.body.slug}/delete`)
      .type('form')
      .send({ token: created.body.deleteToken })
      .expect(200);
    expectEscaped(deleted.text);
  });

  it.each([
    `/paste/${encodeURIComponent(SCRIPT)}`,
    `/paste/${encodeURIComponent(ATTRIBUTE)}/delete`,
    `/paste/${encodeURIComponent(URL)}/created`,
    `/${encodeURIComponent(HOSTILE)}`,
  ])('the error page for %s', async (address) => {
    const page = await site.http.get(address).expect(404);
    expectEscaped(page.text);
  });

  it('the link-preview page, the "Show paste" page with its password error, and a revealed paste with a time limit', async () => {
    const slug = await site.createPaste({ content: HOSTILE, password: 'pw', revealOnClick: true, expiresIn: 3600 });
    expectEscaped((await site.http.get(`/paste/${slug}`).set('User-Agent', 'Slackbot 1.0').expect(200)).text);
    expectEscaped((await site.http.get(`/paste/${slug}`).expect(200)).text);
    expectEscaped(
      (
        await site.http
          .post(`/paste/${slug}/reveal`)
          .type('form')
          .set('Accept', 'text/html')
          .send({ password: HOSTILE })
          .expect(401)
      ).text,
    );
    const shown = await site.http
      .post(`/paste/${slug}/reveal`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: 'pw' })
      .expect(200);
    expectEscaped(shown.text);
    expect(shown.text).toContain('expires in 1 hour');
  });

  it("the owner's dashboard with hostile API key names", async () => {
    const owner = await site.session(OWNER_ID);
    for (const name of [SCRIPT, ATTRIBUTE, URL]) {
      await site.http
        .post('/api/settings/api-keys')
        .set('Cookie', owner.cookie)
        .set('X-CSRF-Token', owner.csrf)
        .send({ name })
        .expect(200);
    }
    const page = await site.http.get('/admin').set('Cookie', owner.cookie).expect(200);
    expectEscaped(page.text);
    expect(page.text).toContain('<td data-label="Name">&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(page.text).toContain('<td data-label="Name">javascript:alert(1)</td>');
    expect(page.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
  });
});
