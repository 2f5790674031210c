import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { keyCheck, newKey, open, seal, type Envelope } from '../../../packages/paste-cli/src/envelope.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// End-to-end encrypted pastes over HTTP (decisions.md, wave 3): the server stores and answers the
// envelope only, and every rule of plain pastes (views, expiry, reveal, previews, passwords,
// delete tokens, limits) holds for it. Reads send the key check of wave 4 (its own rules:
// encrypted-key-check.test.ts); a paste made without one keeps wave 3's page.

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

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

async function encryptedPaste(content: string, fields: Record<string, unknown> = {}, password?: string) {
  const key = newKey();
  const envelope = await seal({ content, title: 'A title', language: 'markdown' }, key, { password });
  const response = await site.http
    .post('/api/paste')
    .send({ encrypted: envelope, ...(password ? { password } : {}), ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return {
    slug: response.body.slug as string,
    key,
    envelope,
    deleteToken: response.body.deleteToken as string,
    check: await keyCheck(key),
  };
}

const row = async (slug: string) =>
  (
    await site.database.pool.query(
      'SELECT content, title, language, encrypted, views_count AS views FROM pastes WHERE slug = $1',
      [slug],
    )
  ).rows[0];

describe(`end-to-end encrypted pastes over HTTP (${testDatabaseBackend()})`, () => {
  it('stores the envelope as sent (known fields only), never a title, and answers it as JSON on the raw view, counting the view', async () => {
    const key = newKey();
    const envelope = await seal({ content: 'the plans', title: 'Secret title', language: 'python' }, key);
    const response = await site.http.post('/api/paste').send({ encrypted: { ...envelope, note: 'dropped' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, title: null, language: 'auto' });
    const { slug } = response.body;
    const stored = await row(slug);
    expect(stored).toMatchObject({ title: null, encrypted: true, views: 0 });
    expect(JSON.parse(stored.content)).toEqual(envelope);
    expect(stored.content).not.toContain('Secret title');

    const raw = await site.http
      .get(`/paste/${slug}/raw`)
      .set('User-Agent', CHROME)
      .set('X-Paste-Key-Check', await keyCheck(key));
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toMatch(/^application\/json/);
    expect(raw.body).toEqual(envelope);
    expect(await open(raw.body as Envelope, key)).toEqual({
      content: 'the plans',
      title: 'Secret title',
      language: 'python',
    });
    expect((await row(slug)).views).toBe(1);
  });

  it('a paste made without a key check (wave 3): the page carries the envelope for its script and counts the view; a link preview and HEAD get no envelope and count none', async () => {
    const key = newKey();
    const { keyHash: _keyHash, ...envelope } = await seal({ content: 'page text' }, key);
    const created = await site.http.post('/api/paste').send({ encrypted: envelope, maxViews: 2 });
    const slug = created.body.slug as string;
    const preview = await site.http.get(`/paste/${slug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0');
    expect(preview.status).toBe(200);
    expect(preview.text).not.toContain(envelope.ciphertext);
    expect((await site.http.head(`/paste/${slug}/raw`)).status).toBe(200);
    expect((await row(slug)).views).toBe(0);

    const page = await site.http.get(`/paste/${slug}`).set('User-Agent', CHROME);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `<script type="application/json" id="paste-envelope">${JSON.stringify(envelope)}</script>`,
    );
    expect(page.text).toContain('<script type="module" src="/static/paste-view.js"></script>');
    expect(page.text).toContain('1 of 2 views');
    expect((await row(slug)).views).toBe(1);
  });

  it('serves the format and the renderers the page loads', async () => {
    for (const [path, type] of [
      ['/static/envelope.js', /javascript/],
      ['/static/paste-view.js', /javascript/],
      ['/static/paste-form.js', /javascript/],
      ['/static/markdown-rules.json', /json/],
      ['/static/vendor/markdown-it/markdown-it.umd.min.js', /javascript/],
      ['/static/vendor/dompurify/purify.min.js', /javascript/],
      ['/static/vendor/highlight/highlight.min.js', /javascript/],
      ['/static/vendor/highlight/languages/haskell.min.js', /javascript/],
    ] as const) {
      const response = await site.http.get(path);
      expect([path, response.status]).toEqual([path, 200]);
      expect(response.headers['content-type']).toMatch(type);
    }
  });

  it('keeps view limits exact: of 20 simultaneous raw views of a 3-view paste, 3 get the envelope and 17 get 410', async () => {
    const { slug, check } = await encryptedPaste('three views', { maxViews: 3 });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${site.baseUrl}/paste/${slug}/raw`, { headers: { 'X-Paste-Key-Check': check } }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
        ),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 410)).toHaveLength(17);
  });

  it('reveal on click: GET /raw answers 405 and counts nothing; POST /raw answers the envelope and counts the view', async () => {
    const { slug, envelope, check } = await encryptedPaste('click first', { maxViews: 1, revealOnClick: true });
    expect((await site.http.get(`/paste/${slug}/raw`).set('X-Paste-Key-Check', check)).status).toBe(405);
    const page = await site.http.get(`/paste/${slug}`).set('User-Agent', CHROME);
    expect(page.text).toContain('Show paste');
    expect(page.text).not.toContain(envelope.ciphertext);
    const raw = await site.http.post(`/paste/${slug}/raw`).set('X-Paste-Key-Check', check).send({});
    expect([raw.status, raw.body]).toEqual([200, envelope]);
    expect((await site.http.post(`/paste/${slug}/raw`).set('X-Paste-Key-Check', check).send({})).status).toBe(410);
  });

  it('with a password the key needs it too, and the server still checks it: 400 without it, 401 wrong, the envelope when right', async () => {
    const { slug, key, envelope, check } = await encryptedPaste('guarded', {}, 'hunter2');
    expect(envelope.salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const raw = (password?: string) =>
      site.http
        .post(`/paste/${slug}/raw`)
        .set('X-Paste-Key-Check', check)
        .send(password === undefined ? {} : { password });
    expect((await site.http.get(`/paste/${slug}/raw`).set('X-Paste-Key-Check', check)).status).toBe(401);
    expect((await raw()).status).toBe(400);
    expect((await raw('wrong')).status).toBe(401);
    const right = await raw('hunter2');
    expect(right.status).toBe(200);
    expect((await open(right.body as Envelope, key, 'hunter2')).content).toBe('guarded');
    await expect(open(right.body as Envelope, key)).rejects.toThrow('Cannot decrypt: wrong key or damaged paste');
    await expect(open(right.body as Envelope, key, 'hunter3')).rejects.toThrow(
      'Cannot decrypt: wrong key or damaged paste',
    );
  });

  it('expires by time as plain pastes do', async () => {
    const { slug } = await encryptedPaste('soon gone', { expiresIn: 60 });
    await site.database.pool.query(`UPDATE pastes SET expires_at = now() - interval '1 second' WHERE slug = $1`, [
      slug,
    ]);
    const raw = await site.http.get(`/paste/${slug}/raw`);
    expect([raw.status, raw.text]).toEqual([410, 'Paste expired\n']);
  });

  it('deletes with its delete token', async () => {
    const { slug, deleteToken } = await encryptedPaste('to delete');
    expect((await site.http.delete(`/api/paste/${slug}`).set('X-Delete-Token', 'wrong')).status).toBe(403);
    expect((await site.http.delete(`/api/paste/${slug}`).set('X-Delete-Token', deleteToken)).status).toBe(200);
    expect((await site.http.get(`/paste/${slug}/raw`)).status).toBe(404);
  });

  it('measures maxPasteSize on the ciphertext: 10,485 bytes pass under 0.01 MB, 10,486 answer 400', async () => {
    await site.reset({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000, maxPasteSize: 0.01 });
    const iv = 'AAAAAAAAAAAAAAAA';
    const ciphertextOf = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64url');
    const fits = await site.http.post('/api/paste').send({ encrypted: { v: 1, iv, ciphertext: ciphertextOf(10_485) } });
    expect(fits.status).toBe(200);
    const over = await site.http.post('/api/paste').send({ encrypted: { v: 1, iv, ciphertext: ciphertextOf(10_486) } });
    expect([over.status, over.body.error]).toEqual([400, 'Content exceeds maximum size of 0.01 MB']);
  });

  it.each([
    {
      name: 'an unknown version',
      body: { encrypted: { v: 2, iv: 'AAAAAAAAAAAAAAAA', ciphertext: 'A'.repeat(24) } },
      field: 'encrypted.v',
    },
    {
      name: 'an iv of the wrong length',
      body: { encrypted: { v: 1, iv: 'AAAA', ciphertext: 'A'.repeat(24) } },
      field: 'encrypted.iv',
    },
    {
      name: 'a ciphertext that is not base64url',
      body: { encrypted: { v: 1, iv: 'AAAAAAAAAAAAAAAA', ciphertext: `${'A'.repeat(24)}+/=` } },
      field: 'encrypted.ciphertext',
    },
    {
      name: 'a ciphertext shorter than its tag',
      body: { encrypted: { v: 1, iv: 'AAAAAAAAAAAAAAAA', ciphertext: 'AAAA' } },
      field: 'encrypted.ciphertext',
    },
    {
      name: 'content beside it',
      body: { content: 'readable', encrypted: { v: 1, iv: 'AAAAAAAAAAAAAAAA', ciphertext: 'A'.repeat(24) } },
      field: 'content',
    },
    {
      name: 'a title beside it',
      body: { title: 'readable', encrypted: { v: 1, iv: 'AAAAAAAAAAAAAAAA', ciphertext: 'A'.repeat(24) } },
      field: 'title',
    },
    {
      name: 'a password without a salt',
      body: { password: 'pw', encrypted: { v: 1, iv: 'AAAAAAAAAAAAAAAA', ciphertext: 'A'.repeat(24) } },
      field: 'encrypted.salt',
    },
    {
      name: 'a salt without a password',
      body: { encrypted: { v: 1, iv: 'AAAAAAAAAAAAAAAA', salt: 'A'.repeat(22), ciphertext: 'A'.repeat(24) } },
      field: 'encrypted.salt',
    },
    { name: 'an envelope that is not an object', body: { encrypted: 'AAAA' }, field: 'encrypted' },
  ])('refuses $name with 400 Validation failed naming $field', async ({ body, field }) => {
    const response = await site.http.post('/api/paste').send(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(Object.keys(response.body.details)).toContain(field);
    expect((await site.database.pool.query('SELECT count(*)::int AS n FROM pastes')).rows[0].n).toBe(0);
  });

  it("from the site's own page it is a web request (CSRF token, web limit), not counted as API usage", async () => {
    const page = await site.pageSession();
    const envelope = await seal({ content: 'from the form' }, newKey());
    const created = await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .set('X-CSRF-Token', page.csrf)
      .send({ encrypted: envelope });
    expect(created.status).toBe(200);
    const owner = await site.session(OWNER_ID);
    const stats = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(stats.body).toMatchObject({ totalPastes: 1, apiUsage: 0 });
  });

  it("the owner's list shows it without a title, with its stored size; the sizes add up to the dashboard's storage; it counts the encrypted pastes", async () => {
    const plain = await site.createPaste({ content: 'plain one', title: 'Plain title' });
    const { slug, envelope } = await encryptedPaste('x'.repeat(1000));
    const owner = await site.session(OWNER_ID);
    const list = await site.http.get('/api/pastes').set('Cookie', owner.cookie);
    expect(list.status).toBe(200);
    const bySlug = Object.fromEntries(list.body.pastes.map((paste: { slug: string }) => [paste.slug, paste]));
    expect(bySlug[slug]).toMatchObject({
      title: null,
      encrypted: true,
    });
    // The stored envelope: the ciphertext and its parameters, as storageUsed counts it.
    expect(bySlug[slug].size).toBeGreaterThan(Buffer.from(envelope.ciphertext, 'base64url').length);
    expect(bySlug[plain]).toMatchObject({ title: 'Plain title', encrypted: false, size: 9 });
    const stored = bySlug[slug].size + 9;
    // GET /api/stats keeps the specification's fields; the dashboard adds the encrypted count.
    const stats = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(stats.body.totalPastes).toBe(2);
    expect(Object.keys(stats.body).sort()).toEqual([
      'apiUsage',
      'avgPasteSize',
      'avgViews',
      'last30Days',
      'mostViewed',
      'storageUsed',
      'totalPastes',
      'totalViews',
    ]);
    const encryptedFigure = (html: string) =>
      /<span class="stat-value">(\d+)<\/span><span class="stat-label">Encrypted<\/span>/.exec(html)?.[1];
    const dashboard = await site.http.get('/admin').set('Cookie', owner.cookie);
    expect(dashboard.text).toContain('Encrypted paste');
    expect(encryptedFigure(dashboard.text)).toBe('1');
    // The figures agree: the list's sizes add up to Storage, and the average is half of it.
    const figure = (label: string) =>
      new RegExp(`<span class="stat-value">([^<]+)</span><span class="stat-label">${label}</span>`).exec(
        dashboard.text,
      )?.[1];
    expect(figure('Storage')).toBe(stored < 1024 ? `${stored} B` : `${(stored / 1024).toFixed(1)} KB`);
    expect(stats.body.storageUsed).toBe(figure('Storage'));
    expect(figure('Average size')).toBe(`${Math.round(stored / 2)} characters`);

    await site.http.delete(`/api/paste/${slug}`).set('Cookie', owner.cookie).set('X-CSRF-Token', owner.csrf);
    expect(encryptedFigure((await site.http.get('/admin').set('Cookie', owner.cookie)).text)).toBe('0');
  });

  it('a plain paste still answers text/plain on its raw view and renders on the server', async () => {
    const slug = await site.createPaste({ content: '# Heading', language: 'markdown' });
    const raw = await site.http.get(`/paste/${slug}/raw`);
    expect(raw.headers['content-type']).toMatch(/^text\/plain/);
    const page = await site.http.get(`/paste/${slug}`);
    expect(page.text).toContain('<h1>Heading</h1>');
    expect(page.text).not.toContain('paste-envelope');
  });
});
