import { rmSync, writeFileSync } from 'node:fs';
import type { Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, test, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OWNER_SETTINGS_LIMIT } from '../src/access/guards.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1e3e3a40000000049454e44ae426082',
  'hex',
);

type Call = (site: TestSite, owner: { cookie: string; csrf: string }) => Test;
const asOwner = (req: Test, owner: { cookie: string; csrf: string }) =>
  req.set('Cookie', owner.cookie).set('X-CSRF-Token', owner.csrf);

const ownerCalls: { name: string; call: Call }[] = [
  {
    name: 'POST /api/settings/general',
    call: (s, o) => asOwner(s.http.post('/api/settings/general'), o).send({ siteName: 'x' }),
  },
  {
    name: 'POST /api/settings/advanced',
    call: (s, o) => asOwner(s.http.post('/api/settings/advanced'), o).send({ slugLength: 9 }),
  },
  { name: 'GET /api/stats', call: (s, o) => asOwner(s.http.get('/api/stats'), o) },
  { name: 'GET /api/pastes', call: (s, o) => asOwner(s.http.get('/api/pastes'), o) },
  { name: 'POST /api/admin/clear-pastes', call: (s, o) => asOwner(s.http.post('/api/admin/clear-pastes'), o) },
  {
    name: 'POST /api/upload/logo',
    call: (s, o) => asOwner(s.http.post('/api/upload/logo'), o).attach('logo', PNG, 'l.png'),
  },
  {
    name: 'POST /api/upload/favicon',
    call: (s, o) => asOwner(s.http.post('/api/upload/favicon'), o).attach('favicon', PNG, 'f.png'),
  },
];
/** The routes that change the limits: the owner has a fixed budget of their own there. */
const settingsCalls: { name: string; call: Call }[] = [
  { name: 'GET /api/settings', call: (s, o) => asOwner(s.http.get('/api/settings'), o) },
  {
    name: 'POST /api/settings/security',
    call: (s, o) => asOwner(s.http.post('/api/settings/security'), o).send({ apiAccess: true }),
  },
];

describe(`429 on every rate-limited endpoint (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let owner: { cookie: string; csrf: string };
  let slug: string;
  beforeAll(async () => {
    site = await startTestSite({ webRateLimit: 1, apiRateLimit: 1 });
    owner = await site.session(OWNER_ID);
    slug = await site.createPaste({ content: 'x' }); // uses the address's one API request
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(200); // uses the address's one web request
    expect((await site.http.get('/api/stats').set('Cookie', owner.cookie)).status).toBe(200); // the owner's own one API request
  });
  afterAll(async () => {
    await site?.close();
  });

  test.each(ownerCalls)(
    '$name answers 429 with the rate-limit headers once the owner used the API limit',
    async ({ call }) => {
      const response = await call(site, owner);
      expect(response.status).toBe(429);
      expect(response.body).toEqual({ error: expect.stringMatching(/too many requests/i) });
      expect(response.headers['x-ratelimit-limit']).toBe('1');
      expect(response.headers['x-ratelimit-remaining']).toBe('0');
      expect(response.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    },
  );

  test.each(settingsCalls)(
    '$name answers 429 to an anonymous client once its address used the API limit',
    async ({ call }) => {
      const response = await call(site, { cookie: '', csrf: '' });
      expect(response.status).toBe(429);
      expect(response.headers['x-ratelimit-limit']).toBe('1');
      expect(response.headers['x-ratelimit-remaining']).toBe('0');
    },
  );

  it('the settings answer the owner 429 once the owner used the fixed settings budget', async () => {
    const { limit } = OWNER_SETTINGS_LIMIT;
    let remaining = Infinity;
    while (remaining > 0) {
      const response = await asOwner(site.http.get('/api/settings'), owner);
      expect(response.status).toBe(200);
      remaining = Number(response.headers['x-ratelimit-remaining']);
    }
    for (const { call } of settingsCalls) {
      const response = await call(site, owner);
      expect(response.status).toBe(429);
      expect(response.body).toEqual({ error: expect.stringMatching(/too many requests/i) });
      expect(response.headers['x-ratelimit-limit']).toBe(String(limit));
      expect(response.headers['x-ratelimit-remaining']).toBe('0');
    }
  });

  test.each([
    { name: 'POST /api/paste (API request)', call: (s: TestSite) => s.http.post('/api/paste').send({ content: 'x' }) },
    { name: 'GET /paste/:slug', call: (s: TestSite) => s.http.get(`/paste/${slug}`) },
    { name: 'GET /paste/:slug/raw', call: (s: TestSite) => s.http.get(`/paste/${slug}/raw`) },
    {
      name: 'POST /paste/:slug/verify',
      call: (s: TestSite) => s.http.post(`/paste/${slug}/verify`).send({ password: 'x' }),
    },
  ])('$name answers 429 with the rate-limit headers', async ({ call }) => {
    const response = await call(site);
    expect(response.status).toBe(429);
    expect(response.headers['x-ratelimit-limit']).toBe('1');
    expect(response.headers['x-ratelimit-remaining']).toBe('0');
  });
});

describe(`500 on internal errors (${testDatabaseBackend()})`, () => {
  let site: TestSite;
  let owner: { cookie: string; csrf: string };
  beforeAll(async () => {
    site = await startTestSite();
    owner = await site.session(OWNER_ID);
  });
  afterAll(async () => {
    await site?.close();
  });

  /** A query that survives one dropped connection (the embedded server drops it after a failed parameterised query). */
  async function query(text: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await site.database.pool.query(text);
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  }

  /** Runs `work` while a table is missing (renamed away), then puts it back. */
  async function withoutTable<T>(table: string, work: () => Promise<T>): Promise<T> {
    await query(`ALTER TABLE ${table} RENAME TO ${table}_away`);
    try {
      return await work();
    } finally {
      await query(`ALTER TABLE ${table}_away RENAME TO ${table}`);
    }
  }

  test.each([
    { name: 'POST /api/paste', call: (s: TestSite) => s.http.post('/api/paste').send({ content: 'x' }) },
    {
      name: 'POST /paste/:slug/verify',
      call: (s: TestSite) => s.http.post('/paste/abc/verify').send({ password: 'x' }),
    },
    { name: 'GET /api/stats', call: (s: TestSite) => asOwner(s.http.get('/api/stats'), owner) },
    { name: 'GET /api/pastes', call: (s: TestSite) => asOwner(s.http.get('/api/pastes'), owner) },
    {
      name: 'POST /api/admin/clear-pastes',
      call: (s: TestSite) => asOwner(s.http.post('/api/admin/clear-pastes'), owner),
    },
  ])('$name answers 500 Internal server error (JSON) when the database fails', async ({ call }) => {
    const response = await withoutTable('pastes', () => call(site));
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'Internal server error' });
  });

  it('GET /paste/:slug answers a readable 500 page when the database fails', async () => {
    const response = await withoutTable('pastes', () => site.http.get('/paste/abc'));
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.text).toContain('Something went wrong');
  });

  test.each(['general', 'security', 'advanced'])(
    'POST /api/settings/%s answers 500 when the settings cannot be stored',
    async (section) => {
      const body =
        section === 'general' ? { siteName: 'x' } : section === 'security' ? { apiAccess: true } : { slugLength: 9 };
      const response = await withoutTable('paste_settings', () =>
        asOwner(site.http.post(`/api/settings/${section}`), owner).send(body),
      );
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ error: 'Internal server error' });
    },
  );

  test.each(['logo', 'favicon'])('POST /api/upload/%s answers 500 when the file cannot be written', async (kind) => {
    // The upload folder replaced by a plain file: creating and writing into it fails.
    rmSync(site.uploadDir, { recursive: true, force: true });
    writeFileSync(site.uploadDir, 'not a folder');
    try {
      const response = await asOwner(site.http.post(`/api/upload/${kind}`), owner).attach(kind, PNG, `${kind}.png`);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ error: 'Internal server error' });
    } finally {
      rmSync(site.uploadDir, { force: true });
    }
  });

  it('GET /auth/idp/callback with a bad state or code redirects home with error=auth_failed', async () => {
    const response = await site.http.get('/auth/idp/callback?code=forged&state=forged');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/?error=auth_failed');
  });

  it('a browser navigating to a failing /api/ address reads the error page; curl and fetch keep JSON', async () => {
    const navigation = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'Sec-Fetch-Mode': 'navigate' };
    const page = await site.http.get('/api/no-such-endpoint').set(navigation);
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Create a new paste');
    for (const accept of ['*/*', 'application/json']) {
      const json = await site.http.get('/api/no-such-endpoint').set('Accept', accept);
      expect(json.status, accept).toBe(404);
      expect(json.body, accept).toMatchObject({ error: 'Not found' });
    }
  });
});
