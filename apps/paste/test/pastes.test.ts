import bcrypt from 'bcrypt';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { startTestSite, type TestSite } from './helpers.js';

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.close();
});
beforeEach(async () => {
  await site.reset();
});

const viewsOf = async (slug: string) =>
  (await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [slug])).rows[0]?.views_count as
    number | undefined;

describe(`POST /api/paste (${testDatabaseBackend()})`, () => {
  it('stores a paste and answers success, the slug, its url /paste/<slug> and its delete token', async () => {
    const response = await site.http.post('/api/paste').send({ content: 'hello world' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.body).toEqual({
      success: true,
      slug: expect.any(String),
      url: `/paste/${response.body.slug}`,
      deleteToken: expect.any(String),
      deleteUrl: expect.stringContaining(`/paste/${response.body.slug}/delete#`),
      expiresAt: null,
      title: null,
      language: 'auto',
    });
    expect(response.body.slug).toMatch(/^[A-Za-z0-9]{8}$/);
    const { rows } = await site.database.pool.query(
      'SELECT content, views_count, max_views, password_hash FROM pastes',
    );
    expect(rows).toEqual([{ content: 'hello world', views_count: 0, max_views: null, password_hash: null }]);
  });

  it('keeps maxViews and a bcrypt hash of the password, never the password itself', async () => {
    const slug = await site.createPaste({ content: 'secret', maxViews: 3, password: 'hunter2' });
    const { rows } = await site.database.pool.query('SELECT max_views, password_hash FROM pastes WHERE slug = $1', [
      slug,
    ]);
    expect(rows[0].max_views).toBe(3);
    expect(rows[0].password_hash).toMatch(/^\$2[aby]\$/);
    expect(await bcrypt.compare('hunter2', rows[0].password_hash)).toBe(true);
  });

  it('accepts a form-encoded body (curl -d) with maxViews as text', async () => {
    const response = await site.http.post('/api/paste').type('form').send({ content: 'from a form', maxViews: '2' });
    expect(response.status).toBe(200);
    const { rows } = await site.database.pool.query('SELECT max_views FROM pastes WHERE slug = $1', [
      response.body.slug,
    ]);
    expect(rows[0].max_views).toBe(2);
  });

  test.each([
    { name: 'empty content', body: { content: '' } },
    { name: 'whitespace-only content', body: { content: '  \n\t ' } },
    { name: 'missing content', body: {} },
    { name: 'null content', body: { content: null } },
    { name: 'no body at all', body: undefined },
  ])('when the request has $name, it answers 400 Content cannot be empty', async ({ body }) => {
    const response = await site.http.post('/api/paste').send(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Content cannot be empty' });
  });

  it('when content is longer than maxPasteSize (UTF-8 bytes), it answers 400 Content exceeds maximum size', async () => {
    await site.settings.update({ maxPasteSize: 0.01 });
    const limit = Math.floor(0.01 * 1024 * 1024);
    expect((await site.http.post('/api/paste').send({ content: 'a'.repeat(limit) })).status).toBe(200);
    const tooLong = await site.http.post('/api/paste').send({ content: 'a'.repeat(limit + 1) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({ error: 'Content exceeds maximum size of 0.01 MB' });
    // Multi-byte characters count as their bytes.
    const wide = await site.http.post('/api/paste').send({ content: 'é'.repeat(limit / 2 + 1) });
    expect(wide.status).toBe(400);
  });

  it('when a body is far beyond the limit, it still answers 400 with the size message (not 413)', async () => {
    await site.settings.update({ maxPasteSize: 0.01 });
    const response = await site.http.post('/api/paste').send({ content: 'x'.repeat(2 * 1024 * 1024) });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Content exceeds maximum size of 0.01 MB');
  });

  it('accepts content of 1 MB under the default setting, above the site-wide 1 MB body limit', async () => {
    const content = 'line of text\n'.repeat(80_000); // ~1.0e6 bytes, < 1 MiB
    const response = await site.http.post('/api/paste').send({ content });
    expect(response.status).toBe(200);
  });

  test.each([
    { name: 'maxViews 0', body: { content: 'x', maxViews: 0 }, field: 'maxViews' },
    { name: 'maxViews -1', body: { content: 'x', maxViews: -1 }, field: 'maxViews' },
    { name: 'maxViews 1.5', body: { content: 'x', maxViews: 1.5 }, field: 'maxViews' },
    { name: 'maxViews "many"', body: { content: 'x', maxViews: 'many' }, field: 'maxViews' },
    { name: 'content as a number', body: { content: 42 }, field: 'content' },
    { name: 'password as an object', body: { content: 'x', password: { a: 1 } }, field: 'password' },
  ])('when the request has $name, it answers 400 Validation failed naming the field', async ({ body, field }) => {
    const response = await site.http.post('/api/paste').send(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(response.body.details).toHaveProperty(field);
  });

  it('answers 400 for a body that is not valid JSON', async () => {
    const response = await site.http.post('/api/paste').set('Content-Type', 'application/json').send('{"content": ');
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual(expect.any(String));
  });

  test.each([
    { slugCharacterSet: 'alphanumeric', slugLength: 8, pattern: /^[A-Za-z0-9]{8}$/ },
    { slugCharacterSet: 'lowercase', slugLength: 12, pattern: /^[a-z]{12}$/ },
    { slugCharacterSet: 'numbers', slugLength: 4, pattern: /^[0-9]{4}$/ },
    { slugCharacterSet: 'letters', slugLength: 64, pattern: /^[A-Za-z]{64}$/ },
  ] as const)(
    'with slugCharacterSet $slugCharacterSet and slugLength $slugLength, slugs follow both',
    async ({ slugCharacterSet, slugLength, pattern }) => {
      await site.settings.update({ slugCharacterSet, slugLength });
      const slugs = await Promise.all(Array.from({ length: 20 }, () => site.createPaste({ content: 'x' })));
      for (const slug of slugs) expect(slug).toMatch(pattern);
      expect(new Set(slugs).size).toBe(20);
    },
  );

  it('draws another slug when one is taken (4 digits, 300 pastes)', async () => {
    await site.settings.update({ slugCharacterSet: 'numbers', slugLength: 4 });
    const slugs: string[] = [];
    for (let i = 0; i < 300; i += 1) slugs.push(await site.createPaste({ content: `paste ${i}` }));
    expect(new Set(slugs).size).toBe(300);
  });
});

describe('GET /paste/:slug', () => {
  it('shows the paste as an HTML page and counts the view', async () => {
    const slug = await site.createPaste({ content: 'const answer = 42;' });
    const response = await site.http.get(`/paste/${slug}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.text).toContain('answer');
    expect(response.text).toContain(`href="/paste/${slug}/raw"`);
    expect(response.text).toContain('id="copy-button"');
    expect(await viewsOf(slug)).toBe(1);
    await site.http.get(`/paste/${slug}`);
    expect(await viewsOf(slug)).toBe(2);
  });

  it('a HEAD request tells whether the paste is there without counting a view', async () => {
    const slug = await site.createPaste({ content: 'once', maxViews: 1 });
    for (let i = 0; i < 3; i += 1) {
      expect((await site.http.head(`/paste/${slug}`)).status).toBe(200);
      expect((await site.http.head(`/paste/${slug}/raw`)).status).toBe(200);
    }
    expect(await viewsOf(slug)).toBe(0);
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(200);
    expect((await site.http.head(`/paste/${slug}`)).status).toBe(410);
    const missing = await site.http.head('/paste/unknownOne');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/text\/html/);
  });

  it('numbers the lines', async () => {
    const slug = await site.createPaste({ content: 'one\ntwo\nthree' });
    const response = await site.http.get(`/paste/${slug}`);
    expect(response.text).toMatch(/<pre class="gutter"[^>]*>1\n2\n3<\/pre>/);
  });

  it('numbers no extra line for a final newline, and counts the empty lines before it', async () => {
    const gutterOf = async (content: string) => {
      const slug = await site.createPaste({ content });
      return /<pre class="gutter"[^>]*>([^<]*)<\/pre>/.exec((await site.http.get(`/paste/${slug}`)).text)?.[1];
    };
    expect(await gutterOf('one\ntwo\nthree\n')).toBe('1\n2\n3');
    expect(await gutterOf('one\n\n')).toBe('1\n2');
    expect(await gutterOf('x\n\n\n')).toBe('1\n2\n3');
  });

  it('answers 404 with a readable HTML page when the paste does not exist', async () => {
    const response = await site.http.get('/paste/doesNotExist');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.text).toContain('Paste not found');
  });

  it('shows the view that reaches maxViews (200), then answers 410 with a readable page', async () => {
    const slug = await site.createPaste({ content: 'twice only', maxViews: 2 });
    const first = await site.http.get(`/paste/${slug}`);
    expect(first.status).toBe(200);
    expect(first.text).not.toContain('last allowed view');
    const last = await site.http.get(`/paste/${slug}`);
    expect(last.status).toBe(200);
    expect(last.text).toContain('twice only');
    expect(last.text).toContain('last allowed view');
    const expired = await site.http.get(`/paste/${slug}`);
    expect(expired.status).toBe(410);
    expect(expired.headers['content-type']).toMatch(/text\/html/);
    expect(expired.text).toContain('expired');
    expect(expired.text).not.toContain('twice only');
    expect(await viewsOf(slug)).toBe(2);
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(410);
  });

  it('escapes hostile content: <script> is shown as text', async () => {
    const slug = await site.createPaste({ content: '<script>alert("x")</script><img src=x onerror=alert(1)>' });
    for (const syntaxHighlighting of [true, false]) {
      await site.settings.update({ syntaxHighlighting });
      const response = await site.http.get(`/paste/${slug}`);
      expect(response.status).toBe(200);
      expect(response.text).not.toContain('<script>alert');
      expect(response.text).not.toContain('<img src=x');
      expect(response.text).toContain('&lt;');
      // The only scripts on the page are the site's own static files (the UI kit's and the page's),
      // beside the two data blocks of their words, which parse whole (nothing broke out of one).
      expect(response.text.match(/<script[^>]*>/g)).toEqual([
        '<script type="application/json" id="ui-messages">',
        '<script src="/static/ui/ui.js">',
        '<script src="/static/app.js" defer>',
        '<script type="application/json" id="page-messages">',
      ]);
      for (const [, json] of response.text.matchAll(/<script type="application\/json"[^>]*>([^<]*)<\/script>/g))
        expect(() => JSON.parse(json!) as unknown).not.toThrow();
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it('highlights code on the server when syntaxHighlighting is on, and not when it is off', async () => {
    const code = [
      'import { readFile } from "node:fs/promises";',
      '',
      'export async function loadConfig(path) {',
      '  const text = await readFile(path, "utf8");',
      '  // Parse and validate the file.',
      '  const config = JSON.parse(text);',
      '  if (!config.name) throw new Error("name is required");',
      '  return { ...config, loadedAt: new Date() };',
      '}',
    ].join('\n');
    const slug = await site.createPaste({ content: code });
    await site.settings.update({ syntaxHighlighting: true });
    expect((await site.http.get(`/paste/${slug}`)).text).toMatch(/class="hljs-(keyword|title|string)/);
    await site.settings.update({ syntaxHighlighting: false });
    expect((await site.http.get(`/paste/${slug}`)).text).not.toMatch(/class="hljs-/);
  });

  it('highlights a long paste in the language found at its start, and shows a very long one plain', async () => {
    await site.settings.update({ syntaxHighlighting: true });
    const block = [
      'import { readFile } from "node:fs/promises";',
      'export async function loadConfig(path) {',
      '  const text = await readFile(path, "utf8");',
      '  const config = JSON.parse(text);',
      '  return { ...config, loadedAt: new Date() };',
      '}',
      '',
    ].join('\n');
    const long = await site.createPaste({ content: block.repeat(400) }); // ~80 KB
    const started = Date.now();
    const page = await site.http.get(`/paste/${long}`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(page.text).toMatch(/class="hljs-keyword"/);
    const huge = await site.createPaste({ content: block.repeat(700) }); // ~140 KB
    expect((await site.http.get(`/paste/${huge}`)).text).not.toMatch(/class="hljs-/);
  });

  it('shows short text verbatim (escaped) rather than a weak language guess', async () => {
    const slug = await site.createPaste({ content: 'Hello <world> & friends' });
    expect((await site.http.get(`/paste/${slug}`)).text).toContain('Hello &lt;world&gt; &amp; friends');
  });
});

describe('password-protected pastes', () => {
  it('shows a password form without the content and without counting a view', async () => {
    const slug = await site.createPaste({ content: 'the secret text', password: 'open sesame' });
    const response = await site.http.get(`/paste/${slug}`);
    expect([200, 401]).toContain(response.status);
    expect(response.text).toContain(`action="/paste/${slug}/verify"`);
    expect(response.text).toContain('type="password"');
    expect(response.text).not.toContain('the secret text');
    expect(await viewsOf(slug)).toBe(0);
  });

  test.each([
    { name: 'the password is missing', body: {}, status: 400, error: 'Password is required' },
    { name: 'the password is empty', body: { password: '' }, status: 400, error: 'Password is required' },
    { name: 'the password is wrong', body: { password: 'nope' }, status: 401, error: 'Incorrect password' },
  ])('POST /paste/:slug/verify when $name answers $status', async ({ body, status, error }) => {
    const slug = await site.createPaste({ content: 'x', password: 'right' });
    const response = await site.http.post(`/paste/${slug}/verify`).send(body);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error });
  });

  it('POST /paste/:slug/verify answers 404 for an unknown paste', async () => {
    const response = await site.http.post('/paste/nothingHere/verify').send({ password: 'x' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Paste not found' });
  });

  it('unlocks the paste for the session only: that session sees it (and counts), others still get the form', async () => {
    const slug = await site.createPaste({ content: 'unlocked text', password: 'right' });
    const verify = await site.http.post(`/paste/${slug}/verify`).send({ password: 'right' });
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({ success: true });
    const cookie = (verify.headers['set-cookie'] as unknown as string[]).map((line) => line.split(';')[0]).join('; ');

    const page = await site.http.get(`/paste/${slug}`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('unlocked text');
    const raw = await site.http.get(`/paste/${slug}/raw`).set('Cookie', cookie);
    expect(raw.text).toBe('unlocked text');
    expect(await viewsOf(slug)).toBe(2);

    const stranger = await site.http.get(`/paste/${slug}`);
    expect(stranger.text).not.toContain('unlocked text');
    expect(await viewsOf(slug)).toBe(2);
  });

  it('a browser form post gets the page back: a redirect on success, the form with the error on failure', async () => {
    const slug = await site.createPaste({ content: 'browser text', password: 'right' });
    const wrong = await site.http
      .post(`/paste/${slug}/verify`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: 'bad' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Incorrect password');
    const right = await site.http
      .post(`/paste/${slug}/verify`)
      .type('form')
      .set('Accept', 'text/html')
      .send({ password: 'right' });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe(`/paste/${slug}`);
  });

  it('an expired protected paste answers 410 even before it is unlocked', async () => {
    const slug = await site.createPaste({ content: 'x', password: 'right', maxViews: 1 });
    const verify = await site.http.post(`/paste/${slug}/verify`).send({ password: 'right' });
    const cookie = (verify.headers['set-cookie'] as unknown as string[]).map((line) => line.split(';')[0]).join('; ');
    expect((await site.http.get(`/paste/${slug}`).set('Cookie', cookie)).status).toBe(200);
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(410);
  });
});

describe('GET /paste/:slug/raw', () => {
  it('answers the content as text/plain and counts the view', async () => {
    const content = '<b>not html</b>\nline 2';
    const slug = await site.createPaste({ content });
    const response = await site.http.get(`/paste/${slug}/raw`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.text).toBe(content);
    expect(await viewsOf(slug)).toBe(1);
  });

  test.each([
    { name: 'unknown', setup: () => Promise.resolve('unknownSlug'), status: 404 },
    {
      name: 'expired',
      setup: async () => {
        const s = await site.createPaste({ content: 'x', maxViews: 1 });
        await site.http.get(`/paste/${s}`);
        return s;
      },
      status: 410,
    },
    { name: 'locked', setup: async () => site.createPaste({ content: 'x', password: 'p' }), status: 401 },
  ])('answers $status in plain text when the paste is $name', async ({ setup, status }) => {
    const slug = await setup();
    const response = await site.http.get(`/paste/${slug}/raw`);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/text\/plain/);
  });
});

describe('pages and unknown paths', () => {
  it('the home page has the create form and the page script, no inline script', async () => {
    const response = await site.http.get('/');
    expect(response.status).toBe(200);
    expect(response.text).toContain('id="paste-form"');
    expect(response.text).toContain('name="content"');
    expect(response.text).toContain('name="maxViews"');
    expect(response.text).toContain('name="password"');
    expect(response.text).toContain('<script src="/static/app.js" defer></script>');
    expect(response.text).not.toMatch(/<script>(?!<\/script>)/);
    const script = await site.http.get('/static/app.js');
    expect(script.status).toBe(200);
    expect(script.text).toContain('X-CSRF-Token');
  });

  it.each(['get', 'post', 'put', 'delete', 'patch'] as const)(
    'unknown /api paths answer %s with 404 { success: false, error: "Not found" }',
    async (method) => {
      const api = await site.http[method]('/api/nothing');
      expect(api.status).toBe(404);
      expect(api.headers['content-type']).toMatch(/application\/json/);
      expect(api.body).toEqual({ success: false, error: 'Not found' });
    },
  );

  it.each(['get', 'post', 'put', 'delete'] as const)(
    'unknown pages answer %s with the HTML 404 page, never Express\'s "Cannot ..."',
    async (method) => {
      const page = await site.http[method]('/nothing/here').set('Accept', 'application/json');
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.text).toContain('Page not found');
      expect(page.text).not.toMatch(/Cannot (GET|POST|PUT|DELETE)/);
    },
  );

  it('HEAD of an unknown path answers 404 with headers only', async () => {
    const page = await site.http.head('/nothing/here');
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const api = await site.http.head('/api/nothing');
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toMatch(/application\/json/);
  });

  it('GET /api/csrf-token answers a token string', async () => {
    const response = await site.http.get('/api/csrf-token');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ csrfToken: expect.any(String) });
  });

  it('health probes answer', async () => {
    expect((await site.http.get('/healthz')).status).toBe(200);
    expect((await site.http.get('/readyz')).status).toBe(200);
  });
});
