import type { Test } from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OTHER_USER_ID, OWNER_ID, startTestSite, type TestSite } from './helpers.js';

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

type Method = 'get' | 'post' | 'delete';
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a1e3e3a40000000049454e44ae426082',
  'hex',
);

/** Every owner endpoint with a request that succeeds for the owner. */
const ownerEndpoints: { name: string; method: Method; path: string; write: boolean; send?: (req: Test) => Test }[] = [
  { name: 'GET /api/settings', method: 'get', path: '/api/settings', write: false },
  {
    name: 'POST /api/settings/general',
    method: 'post',
    path: '/api/settings/general',
    write: true,
    send: (r) => r.send({ siteName: 'Mine' }),
  },
  {
    name: 'POST /api/settings/security',
    method: 'post',
    path: '/api/settings/security',
    write: true,
    send: (r) => r.send({ apiAccess: true }),
  },
  {
    name: 'POST /api/settings/advanced',
    method: 'post',
    path: '/api/settings/advanced',
    write: true,
    send: (r) => r.send({ syntaxHighlighting: true }),
  },
  { name: 'GET /api/stats', method: 'get', path: '/api/stats', write: false },
  { name: 'GET /api/pastes', method: 'get', path: '/api/pastes', write: false },
  { name: 'POST /api/admin/clear-pastes', method: 'post', path: '/api/admin/clear-pastes', write: true },
  {
    name: 'POST /api/upload/logo',
    method: 'post',
    path: '/api/upload/logo',
    write: true,
    send: (r) => r.attach('logo', PNG, 'logo.png'),
  },
  {
    name: 'POST /api/upload/favicon',
    method: 'post',
    path: '/api/upload/favicon',
    write: true,
    send: (r) => r.attach('favicon', PNG, 'icon.png'),
  },
  { name: 'GET /api/settings/api-keys', method: 'get', path: '/api/settings/api-keys', write: false },
  {
    name: 'POST /api/settings/api-keys',
    method: 'post',
    path: '/api/settings/api-keys',
    write: true,
    send: (r) => r.send({ name: 'ci' }),
  },
  {
    name: 'DELETE /api/settings/api-keys/:id',
    method: 'delete',
    path: '/api/settings/api-keys/00000000-0000-4000-8000-000000000000',
    write: true,
  },
];

function call(endpoint: (typeof ownerEndpoints)[number], headers: Record<string, string> = {}) {
  let req = site.http[endpoint.method](endpoint.path);
  for (const [key, value] of Object.entries(headers)) req = req.set(key, value);
  return endpoint.send ? endpoint.send(req) : req;
}

describe(`owner endpoints (${testDatabaseBackend()})`, () => {
  test.each(ownerEndpoints)('$name: without a session it answers 403', async (endpoint) => {
    const response = await call(endpoint);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Owner sign-in required' });
  });

  test.each(ownerEndpoints)('$name: a signed-in user who is not the owner gets 403', async (endpoint) => {
    const other = await site.session(OTHER_USER_ID);
    const response = await call(endpoint, { Cookie: other.cookie, 'X-CSRF-Token': other.csrf });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Forbidden' });
  });

  test.each(ownerEndpoints.filter((endpoint) => endpoint.write))(
    '$name: the owner without the CSRF token gets 403 Invalid CSRF token',
    async (endpoint) => {
      const owner = await site.session(OWNER_ID);
      const attempts: Record<string, string>[] = [
        { Cookie: owner.cookie },
        { Cookie: owner.cookie, 'X-CSRF-Token': 'wrong' },
        { Cookie: owner.cookie, 'X-API-Key': 'anything' },
      ];
      for (const headers of attempts) {
        const response = await call(endpoint, headers);
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ error: 'Invalid CSRF token' });
      }
    },
  );

  test.each(ownerEndpoints)('$name: the owner with the CSRF token succeeds', async (endpoint) => {
    const owner = await site.session(OWNER_ID);
    const response = await call(endpoint, { Cookie: owner.cookie, 'X-CSRF-Token': owner.csrf });
    // Deleting a key that does not exist is the one 404 here.
    expect(response.status).toBe(endpoint.method === 'delete' ? 404 : 200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
  });
});

describe('settings', () => {
  const asOwner = async () => {
    const owner = await site.session(OWNER_ID);
    return { Cookie: owner.cookie, 'X-CSRF-Token': owner.csrf };
  };

  it('GET /api/settings answers every field with the specification defaults', async () => {
    await site.reset({});
    const response = await site.http.get('/api/settings').set(await asOwner());
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      siteName: expect.any(String),
      favIcon: expect.any(String),
      logo: expect.any(String),
      siteDescription: expect.any(String),
      primaryColor: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      secondaryColor: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      webRateLimit: 100,
      webRateLimitWindow: 60,
      maxPasteSize: 1,
      maxAttachmentBytes: 100 * 1024 ** 2,
      apiAccess: true,
      apiRateLimit: 100,
      apiRateLimitWindow: 60,
      apiKeyProtection: false,
      autoDeleteInactive: 'never',
      syntaxHighlighting: expect.any(Boolean),
      slugLength: 8,
      slugCharacterSet: 'alphanumeric',
    });
  });

  test.each([
    {
      section: 'general',
      body: { siteName: 'My Pastes', secondaryColor: '#ABC', siteDescription: 'Code, shared' },
      message: 'General settings updated successfully',
    },
    {
      section: 'security',
      body: {
        webRateLimit: 50,
        webRateLimitWindow: 10,
        maxPasteSize: 2.5,
        apiAccess: false,
        apiRateLimit: 700_000,
        apiRateLimitWindow: 1440,
        apiKeyProtection: true,
      },
      message: 'Security settings updated successfully',
    },
    {
      section: 'advanced',
      body: { autoDeleteInactive: '30', syntaxHighlighting: false, slugLength: 12, slugCharacterSet: 'lowercase' },
      message: 'Advanced settings updated successfully',
    },
  ])('POST /api/settings/$section saves the fields and answers "$message"', async ({ section, body, message }) => {
    const headers = await asOwner();
    const response = await site.http.post(`/api/settings/${section}`).set(headers).send(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message });
    const read = await site.http.get('/api/settings').set(headers);
    expect(read.body).toMatchObject(body);
  });

  it('a section changes only the fields it names', async () => {
    const headers = await asOwner();
    await site.http.post('/api/settings/general').set(headers).send({ siteName: 'First' });
    await site.http.post('/api/settings/general').set(headers).send({ siteDescription: 'Second' });
    const read = await site.http.get('/api/settings').set(headers);
    expect(read.body).toMatchObject({ siteName: 'First', siteDescription: 'Second' });
  });

  test.each([
    { section: 'general', body: { secondaryColor: 'red' }, field: 'secondaryColor' },
    { section: 'general', body: { primaryColor: '#12345' }, field: 'primaryColor' },
    { section: 'general', body: { secondaryColor: '#fff;}body{display:none' }, field: 'secondaryColor' },
    { section: 'general', body: { siteName: '' }, field: 'siteName' },
    { section: 'security', body: { webRateLimit: 0 }, field: 'webRateLimit' },
    { section: 'security', body: { apiRateLimit: 1_000_001 }, field: 'apiRateLimit' },
    { section: 'security', body: { webRateLimitWindow: 10_081 }, field: 'webRateLimitWindow' },
    { section: 'security', body: { apiRateLimitWindow: 0 }, field: 'apiRateLimitWindow' },
    { section: 'security', body: { maxPasteSize: 0.001 }, field: 'maxPasteSize' },
    { section: 'security', body: { maxPasteSize: 101 }, field: 'maxPasteSize' },
    { section: 'security', body: { apiAccess: 'maybe' }, field: 'apiAccess' },
    { section: 'advanced', body: { slugLength: 3 }, field: 'slugLength' },
    { section: 'advanced', body: { slugLength: 65 }, field: 'slugLength' },
    { section: 'advanced', body: { slugCharacterSet: 'emoji' }, field: 'slugCharacterSet' },
    { section: 'advanced', body: { autoDeleteInactive: '14' }, field: 'autoDeleteInactive' },
  ])(
    'POST /api/settings/$section with $field out of range answers 400 Validation failed with details',
    async ({ section, body, field }) => {
      const headers = await asOwner();
      const before = (await site.http.get('/api/settings').set(headers)).body;
      const response = await site.http.post(`/api/settings/${section}`).set(headers).send(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation failed');
      expect(response.body.details).toHaveProperty(field);
      expect((await site.http.get('/api/settings').set(headers)).body).toEqual(before);
    },
  );

  it('hostile siteName and siteDescription are shown as text on every page', async () => {
    const headers = await asOwner();
    await site.http
      .post('/api/settings/general')
      .set(headers)
      .send({ siteName: '<script>alert("name")</script>', siteDescription: '"><img src=x onerror=alert(1)>' });
    const slug = await site.createPaste({ content: 'x' });
    for (const path of ['/', `/paste/${slug}`, '/paste/missing']) {
      const page = await site.http.get(path);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
      expect(page.text).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it('the colours reach the page', async () => {
    const headers = await asOwner();
    await site.http
      .post('/api/settings/general')
      .set(headers)
      .send({ primaryColor: '#ff0000', secondaryColor: '#00ff00' });
    const page = await site.http.get('/');
    expect(page.text).toContain('--primary:#ff0000');
    expect(page.text).toContain('--secondary:#00ff00');
  });

  describe('the attachment limit on the dashboard, in MB', () => {
    const MiB = 1024 * 1024;
    const FIELD = 'Maximum attachments (MB)';
    /** The dashboard's attachment field: its label (escaped as the page writes it) and value. */
    const dashboardField = async (headers: Record<string, string>) => {
      const html = (await site.http.get('/admin').set(headers)).text;
      const field =
        /<label class="field"><span class="label">([^<]*)<\/span>\s*<input type="number" name="maxAttachmentMegabytes"([^>]*)>/.exec(
          html,
        );
      return { label: field?.[1], attributes: field?.[2] ?? '', value: /value="([^"]*)"/.exec(field?.[2] ?? '')?.[1] };
    };

    it('shows the limit (100 MB by default) with its range, and saves megabytes as bytes', async () => {
      const headers = await asOwner();
      expect(await dashboardField(headers)).toMatchObject({ label: FIELD, value: '100' });
      expect((await dashboardField(headers)).attributes).toMatch(/min="0" max="5120" step="any"/);

      for (const [sent, bytes] of [
        [250, 250 * MiB],
        ['0.5', 512 * 1024],
        [5120, 5 * 1024 ** 3],
        [0, 0],
      ] as const) {
        const response = await site.http
          .post('/api/settings/security')
          .set(headers)
          .send({ maxAttachmentMegabytes: sent });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ success: true, message: 'Security settings updated successfully' });
        expect((await site.http.get('/api/settings').set(headers)).body.maxAttachmentBytes).toBe(bytes);
        expect((await dashboardField(headers)).value).toBe(String(bytes / MiB));
      }
      // The new limit is the one a paste meets.
      await site.http.post('/api/settings/security').set(headers).send({ maxAttachmentMegabytes: 0.001 });
      const limit = Math.round(0.001 * MiB);
      const declare = (size: number) => site.http.post('/api/paste').send({ content: 'x', attachments: [{ size }] });
      expect((await declare(limit + 1)).body.error).toBe('Attachments too large');
      expect((await declare(limit)).status).toBe(200);
    });

    it('a limit set in bytes that is no whole number of MB survives saving the form unchanged', async () => {
      const headers = await asOwner();
      await site.http.post('/api/settings/security').set(headers).send({ maxAttachmentBytes: 1000 }).expect(200);
      const shown = (await dashboardField(headers)).value!;
      expect(Number(shown)).toBeCloseTo(1000 / MiB, 7);
      await site.http
        .post('/api/settings/security')
        .set(headers)
        .send({ maxAttachmentMegabytes: Number(shown), apiRateLimit: 500 })
        .expect(200);
      expect((await site.http.get('/api/settings').set(headers)).body).toMatchObject({
        maxAttachmentBytes: 1000,
        apiRateLimit: 500,
      });
    });

    test.each([
      { body: { maxAttachmentMegabytes: 5121 }, field: 'maxAttachmentMegabytes', text: /at most 5120 MB/ },
      { body: { maxAttachmentMegabytes: -1 }, field: 'maxAttachmentMegabytes', text: /below 0 MB/ },
      { body: { maxAttachmentMegabytes: 'lots' }, field: 'maxAttachmentMegabytes', text: /must be a number of MB/ },
      {
        body: { maxAttachmentMegabytes: 10, maxAttachmentBytes: 10 },
        field: 'maxAttachmentMegabytes',
        text: /not both/,
      },
      { body: { maxAttachmentBytes: 5 * 1024 ** 3 + 1 }, field: 'maxAttachmentBytes', text: /at most 5368709120/ },
      { body: { maxAttachmentBytes: 1.5 }, field: 'maxAttachmentBytes', text: /whole number of bytes/ },
    ])('$body answers 400 Validation failed, saying why, and changes nothing', async ({ body, field, text }) => {
      const headers = await asOwner();
      const before = (await site.http.get('/api/settings').set(headers)).body;
      const response = await site.http.post('/api/settings/security').set(headers).send(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Validation failed');
      expect(response.body.details[field]).toMatch(text);
      expect((await site.http.get('/api/settings').set(headers)).body).toEqual(before);
    });

    it('without the CSRF token the limit is refused and kept', async () => {
      const owner = await site.session(OWNER_ID);
      const response = await site.http
        .post('/api/settings/security')
        .set('Cookie', owner.cookie)
        .send({ maxAttachmentMegabytes: 1 });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: 'Invalid CSRF token' });
      expect((await site.http.get('/api/settings').set('Cookie', owner.cookie)).body.maxAttachmentBytes).toBe(
        100 * MiB,
      );
    });
  });
});

describe('statistics', () => {
  it('answers zeros on an empty site', async () => {
    const owner = await site.session(OWNER_ID);
    const response = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      totalPastes: 0,
      totalViews: 0,
      last30Days: 0,
      apiUsage: 0,
      avgPasteSize: '0 characters',
      mostViewed: 0,
      avgViews: 0,
      storageUsed: '0 B',
    });
  });

  it('computes every figure as decisions.md defines it', async () => {
    const owner = await site.session(OWNER_ID);
    const a = await site.createPaste({ content: 'a'.repeat(100) });
    const b = await site.createPaste({ content: 'é'.repeat(50) }); // 50 characters, 100 bytes
    await site.createPaste({ content: 'x'.repeat(2000) });
    const page = await site.pageSession();
    await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .set('X-CSRF-Token', page.csrf)
      .send({ content: 'from the page' });
    await site.database.pool.query("UPDATE pastes SET created_at = now() - interval '40 days' WHERE slug = $1", [b]);
    for (let i = 0; i < 3; i += 1) await site.http.get(`/paste/${a}`);
    await site.http.get(`/paste/${b}`);

    const response = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    const chars = 100 + 50 + 2000 + 13;
    const bytes = 100 + 100 + 2000 + 13;
    expect(response.body).toEqual({
      totalPastes: 4,
      totalViews: 4,
      last30Days: 3,
      apiUsage: 3, // three API pastes; the page's paste is a web request
      avgPasteSize: `${Math.round(chars / 4)} characters`,
      mostViewed: 3,
      avgViews: 1,
      storageUsed: `${(bytes / 1024).toFixed(1)} KB`,
    });
  });

  it('avgViews has two decimals', async () => {
    const owner = await site.session(OWNER_ID);
    const slugs = [
      await site.createPaste({ content: '1' }),
      await site.createPaste({ content: '2' }),
      await site.createPaste({ content: '3' }),
    ];
    await site.http.get(`/paste/${slugs[0]}`);
    const response = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(response.body.avgViews).toBe(0.33);
  });
});

describe('clear-pastes', () => {
  it('deletes every paste and answers deletedCount', async () => {
    const owner = await site.session(OWNER_ID);
    for (let i = 0; i < 3; i += 1) await site.createPaste({ content: `p${i}` });
    const response = await site.http
      .post('/api/admin/clear-pastes')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: expect.stringContaining('3'), deletedCount: 3 });
    expect((await site.database.pool.query('SELECT count(*) AS n FROM pastes')).rows[0].n).toBe(0);
    const again = await site.http
      .post('/api/admin/clear-pastes')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf);
    expect(again.body.deletedCount).toBe(0);
  });
});

describe('API access and API keys', () => {
  const ownerHeaders = async () => {
    const owner = await site.session(OWNER_ID);
    return { Cookie: owner.cookie, 'X-CSRF-Token': owner.csrf };
  };

  it('with apiAccess off, API requests get 403 API access is disabled while the site page still creates pastes', async () => {
    await site.settings.update({ apiAccess: false });
    const api = await site.http.post('/api/paste').send({ content: 'x' });
    expect(api.status).toBe(403);
    expect(api.body).toEqual({ error: 'API access is disabled' });
    const page = await site.pageSession();
    const web = await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .set('X-CSRF-Token', page.csrf)
      .send({ content: 'x' });
    expect(web.status).toBe(200);
  });

  it('with apiKeyProtection on, API requests need a key the owner created', async () => {
    const headers = await ownerHeaders();
    const created = await site.http.post('/api/settings/api-keys').set(headers).send({ name: 'deploy script' });
    expect(created.status).toBe(200);
    const key = created.body.apiKey.key as string;
    expect(key).toMatch(/^pk_[A-Za-z0-9_-]{40,}$/);
    await site.http.post('/api/settings/security').set(headers).send({ apiKeyProtection: true });

    const missing = await site.http.post('/api/paste').send({ content: 'x' });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'API key required' });
    const wrong = await site.http.post('/api/paste').set('X-API-Key', 'pk_wrong').send({ content: 'x' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid API key' });
    expect((await site.http.post('/api/paste').set('X-API-Key', key).send({ content: 'x' })).status).toBe(200);
    expect(
      (await site.http.post('/api/paste').set('Authorization', `Bearer ${key}`).send({ content: 'x' })).status,
    ).toBe(200);

    // Its use is recorded (at most once a minute).
    const used = await site.database.pool.query('SELECT last_used_at FROM api_keys');
    expect(used.rows[0].last_used_at).toBeInstanceOf(Date);

    // The list shows no secret; a deleted key stops working.
    const list = await site.http.get('/api/settings/api-keys').set(headers);
    expect(list.body.apiKeys).toEqual([
      expect.objectContaining({ id: created.body.apiKey.id, name: 'deploy script', prefix: key.slice(0, 9) }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(key);
    const { rows } = await site.database.pool.query('SELECT key_hash FROM api_keys');
    expect(rows[0].key_hash).not.toContain(key);
    const removed = await site.http.delete(`/api/settings/api-keys/${created.body.apiKey.id}`).set(headers);
    expect(removed.body).toEqual({ success: true, message: 'API key deleted' });
    expect((await site.http.post('/api/paste').set('X-API-Key', key).send({ content: 'x' })).status).toBe(401);
  });

  it('API key names are validated', async () => {
    const response = await site.http
      .post('/api/settings/api-keys')
      .set(await ownerHeaders())
      .send({ name: '' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
  });
});

describe('sign-in endpoints', () => {
  it('GET /auth/idp redirects to the provider', async () => {
    const response = await site.http.get('/auth/idp');
    expect(response.status).toBe(302);
    expect(response.headers.location).toMatch(/\/authorize\?/);
  });

  it('GET /auth/status tells whether the owner is signed in, with the user and the session', async () => {
    expect((await site.http.get('/auth/status')).body).toMatchObject({ authenticated: false });
    const owner = await site.session(OWNER_ID);
    const status = await site.http.get('/auth/status').set('Cookie', owner.cookie);
    expect(status.body).toEqual({
      authenticated: true,
      user: { id: OWNER_ID, username: expect.any(String) },
      session: { passport: { user: expect.objectContaining({ id: OWNER_ID }) } },
    });
  });

  it('GET /auth/logout ends the session and redirects to the homepage', async () => {
    const { signInAs } = await import('@app/auth/testing');
    const cookie = await signInAs(site.baseUrl, OWNER_ID);
    const logout = await site.http.get('/auth/logout').set('Cookie', cookie);
    expect(logout.status).toBe(302);
    expect(logout.headers.location).toBe('/');
    expect((await site.http.get('/api/settings').set('Cookie', cookie)).status).toBe(403);
  });
});
