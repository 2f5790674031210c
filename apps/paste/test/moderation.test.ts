import { documentOf } from '@app/ui/testing/dom';
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

interface Listed {
  slug: string;
  title: string | null;
  createdAt: string;
  size: number;
  viewsCount: number;
  maxViews: number | null;
  expiresAt: string | null;
  passwordProtected: boolean;
  encrypted: boolean;
}

const asOwner = async () => ({ Cookie: (await site.session(OWNER_ID)).cookie });

async function list(
  query: Record<string, string | number> = {},
): Promise<{ pastes: Listed[]; nextCursor: string | null }> {
  const response = await site.http
    .get('/api/pastes')
    .query(query)
    .set(await asOwner());
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** `count` pastes in one statement: they share one created_at, so only the id orders them. */
async function insertSameInstant(count: number, prefix: string): Promise<string[]> {
  const { rows } = await site.database.pool.query<{ slug: string }>(
    `INSERT INTO pastes (slug, content, title)
     SELECT $1 || lpad(n::text, 4, '0'), 'content ' || n, 'Bulk ' || n FROM generate_series(1, $2::int) AS n
     RETURNING slug`,
    [prefix, count],
  );
  return rows.map((row) => row.slug);
}

describe(`GET /api/pastes (${testDatabaseBackend()})`, () => {
  it('lists every paste for the owner, newest first, with its facts and never its content or password', async () => {
    const first = await site.createPaste({ content: 'héllo', title: 'Greeting' });
    const second = await site.createPaste({ content: 'top secret text', password: 'hunter2', maxViews: 3 });
    await site.http.get(`/paste/${first}`).expect(200);

    const response = await site.http.get('/api/pastes').set(await asOwner());
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body.nextCursor).toBeNull();
    expect(response.body.pastes).toEqual([
      {
        slug: second,
        title: null,
        createdAt: expect.any(String),
        size: 15,
        viewsCount: 0,
        maxViews: 3,
        expiresAt: null,
        passwordProtected: true,
        encrypted: false,
      },
      {
        slug: first,
        title: 'Greeting',
        createdAt: expect.any(String),
        size: 6,
        viewsCount: 1,
        maxViews: null,
        expiresAt: null,
        passwordProtected: false,
        encrypted: false,
      },
    ]);
    expect(new Date(response.body.pastes[0].createdAt).toISOString()).toBe(response.body.pastes[0].createdAt);
    expect(response.text).not.toMatch(/top secret|héllo|hunter2|\$2[aby]\$|content|password"/);
  });

  it('searches part of the slug or the title, in any case', async () => {
    const release = await site.createPaste({ content: 'a', title: 'Release NOTES for 2.0' });
    const other = await site.createPaste({ content: 'b', title: 'Shopping list' });
    await site.createPaste({ content: 'c' });
    expect((await list({ q: 'notes' })).pastes.map((paste) => paste.slug)).toEqual([release]);
    expect((await list({ q: 'LIST' })).pastes.map((paste) => paste.slug)).toEqual([other]);
    expect((await list({ q: other.slice(2, 6).toLowerCase() })).pastes.map((paste) => paste.slug)).toContain(other);
    expect((await list({ q: 'nothing like this' })).pastes).toEqual([]);
    // Characters that mean something to LIKE are plain text here.
    expect((await list({ q: '%' })).pastes).toEqual([]);
    expect((await list({ q: '_' })).pastes).toEqual([]);
    expect((await list({ q: '' })).pastes).toHaveLength(3);
  });

  it('pages through 120 pastes by cursor with none missing and none twice, also where pastes share one instant', async () => {
    const bulk = await insertSameInstant(100, 'Bulk');
    const made: string[] = [...bulk];
    for (let index = 0; index < 20; index += 1) made.push(await site.createPaste({ content: `paste ${index}` }));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { pastes: Listed[]; nextCursor: string | null } = await list(
        cursor ? { limit: 7, cursor } : { limit: 7 },
      );
      expect(page.pastes.length).toBeLessThanOrEqual(7);
      seen.push(...page.pastes.map((paste) => paste.slug));
      cursor = page.nextCursor;
      pages += 1;
      expect(pages).toBeLessThan(30);
    } while (cursor);
    expect(pages).toBe(Math.ceil(120 / 7));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...made].sort());
    // Newest first: the 20 made one by one come before the bulk insert.
    expect(seen.slice(20).sort()).toEqual([...bulk].sort());

    // The default page is 50; a full last page says there is no more.
    const first = await list();
    expect(first.pastes).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const exact = await list({ limit: 100, cursor: (await list({ limit: 20 })).nextCursor! });
    expect(exact.pastes).toHaveLength(100);
    expect(exact.nextCursor).toBeNull();
  });

  it('keeps paging correctly when the owner deletes pastes between pages', async () => {
    await insertSameInstant(30, 'Del');
    const page1 = await list({ limit: 10 });
    const owner = await site.session(OWNER_ID);
    // The last paste of the page, the one the cursor names, is deleted.
    for (const paste of page1.pastes.slice(-2)) {
      await site.http
        .delete(`/api/paste/${paste.slug}`)
        .set('Cookie', owner.cookie)
        .set('X-CSRF-Token', owner.csrf)
        .expect(200);
    }
    const page2 = await list({ limit: 10, cursor: page1.nextCursor! });
    expect(page2.pastes).toHaveLength(10);
    const rest = await list({ limit: 10, cursor: page2.nextCursor! });
    expect(rest.nextCursor).toBeNull();
    const all = [...page1.pastes.slice(0, 8), ...page2.pastes, ...rest.pastes].map((paste) => paste.slug);
    expect(new Set(all).size).toBe(28);
    expect((await list({ q: 'Del' })).pastes.map((paste) => paste.slug).sort()).toEqual([...all].sort());
  });

  test.each([
    [{ limit: 0 }, 'limit', 'limit must be a whole number from 1 to 100'],
    [{ limit: 101 }, 'limit', 'limit must be a whole number from 1 to 100'],
    [{ limit: 'ten' }, 'limit', 'limit must be a whole number from 1 to 100'],
    [{ cursor: 'not-a-cursor' }, 'cursor', 'cursor is not valid: pass the nextCursor of an earlier answer'],
    [
      { cursor: Buffer.from('["2026-02-30T00:00:00.000000Z",1]').toString('base64url') },
      'cursor',
      'cursor is not valid: pass the nextCursor of an earlier answer',
    ],
    [
      { cursor: Buffer.from('["2026-01-01T00:00:00.000000Z",-1]').toString('base64url') },
      'cursor',
      'cursor is not valid: pass the nextCursor of an earlier answer',
    ],
  ])('refuses %o with 400 and a readable message', async (query, field, message) => {
    const response = await site.http
      .get('/api/pastes')
      .query(query)
      .set(await asOwner());
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(response.body.details[field]).toBe(message);
  });

  it('answers 403 without a session and to any other user, 401 to a wrong API key', async () => {
    await site.createPaste({ content: 'x' });
    const anonymous = await site.http.get('/api/pastes');
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toEqual({ error: 'Owner sign-in required' });
    const other = await site.session(OTHER_USER_ID);
    const stranger = await site.http.get('/api/pastes').set('Cookie', other.cookie);
    expect(stranger.status).toBe(403);
    expect(stranger.body).toEqual({ error: 'Forbidden' });
    const wrongKey = await site.http.get('/api/pastes').set('X-API-Key', 'pk_wrong');
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body).toEqual({ error: 'Invalid API key' });
    // A wrong key does not fall back on the session.
    expect(
      (
        await site.http
          .get('/api/pastes')
          .set(await asOwner())
          .set('Authorization', 'Bearer pk_wrong')
      ).status,
    ).toBe(401);
    for (const response of [anonymous, stranger, wrongKey]) expect(response.body.pastes).toBeUndefined();
  });

  it('answers an API key the owner made (X-API-Key or Bearer)', async () => {
    const slug = await site.createPaste({ content: 'x' });
    const owner = await site.session(OWNER_ID);
    const made = await site.http
      .post('/api/settings/api-keys')
      .set('Cookie', owner.cookie)
      .set('X-CSRF-Token', owner.csrf)
      .send({ name: 'moderation script' });
    const key = made.body.apiKey.key as string;
    for (const header of [{ 'X-API-Key': key }, { Authorization: `Bearer ${key}` }]) {
      const response = await site.http.get('/api/pastes').set(header);
      expect(response.status).toBe(200);
      expect(response.body.pastes.map((paste: Listed) => paste.slug)).toEqual([slug]);
    }
  });

  it('is described in the OpenAPI document with its query and credentials', async () => {
    const document = (await site.http.get('/openapi.json').expect(200)).body;
    const operation = document.paths['/api/pastes'].get;
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual([
      'cursor',
      'limit',
      'q',
    ]);
    expect(operation.security).toEqual([{ session: [] }, { apiKey: [] }, { bearer: [] }]);
  });
});

describe(`the owner's page lists, searches and pages pastes (${testDatabaseBackend()})`, () => {
  const page = async (query = '') => {
    const response = await site.http.get(`/admin${query}`).set(await asOwner());
    expect(response.status).toBe(200);
    return documentOf(response.text);
  };

  it('shows a Pastes table with links, a labelled search, Delete buttons and a Next page link', async () => {
    await insertSameInstant(25, 'Row');
    const titled = await site.createPaste({ content: 'hello', title: 'Meeting <notes>', maxViews: 2, password: 'pw' });
    const document = await page();
    const section = document.getElementById('pastes')!;
    expect(section.querySelector('h2')!.textContent).toBe('Pastes');
    const search = section.querySelector('input[name=q]')!;
    expect(search.closest('label')!.textContent).toContain('Search pastes');
    const rows = [...section.querySelectorAll('tbody tr')];
    expect(rows).toHaveLength(20);
    const top = rows[0]!;
    expect(top.querySelector('a')!.getAttribute('href')).toBe(`/paste/${titled}`);
    expect([...top.querySelectorAll('td')].map((cell) => cell.textContent.trim())).toEqual([
      titled,
      'Meeting <notes>',
      '5 B',
      '0',
      '2 views, password',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/),
      'Delete',
    ]);
    expect(top.querySelector('button')!.getAttribute('data-delete-paste')).toBe(titled);
    const next = [...section.querySelectorAll('a')].find((link) => link.textContent === 'Next page')!;
    expect(next.getAttribute('href')).toMatch(/^\/admin\?cursor=[A-Za-z0-9_-]+#pastes$/);

    const second = await page(next.getAttribute('href')!.replace('/admin', '').replace('#pastes', ''));
    expect(second.querySelectorAll('#pastes tbody tr')).toHaveLength(6);
    expect([...second.querySelectorAll('#pastes a')].some((link) => link.textContent === 'Next page')).toBe(false);
    expect(
      [...second.querySelectorAll('#pastes a')].find((link) => link.textContent === 'First page')!.getAttribute('href'),
    ).toBe('/admin#pastes');
  });

  it('filters by the search and keeps it in the page links; a stale cursor shows the first page', async () => {
    await insertSameInstant(3, 'Zed');
    const found = await site.createPaste({ content: 'x', title: 'Quarterly report' });
    const document = await page('?q=QUARTERLY');
    expect((document.querySelector('#pastes input[name=q]') as HTMLInputElement).value).toBe('QUARTERLY');
    expect([...document.querySelectorAll('#pastes tbody tr a')].map((link) => link.textContent)).toEqual([found]);
    expect((await page('?q=no-such-thing')).querySelector('#pastes .empty-title')!.textContent).toBe(
      'No paste matches this search.',
    );
    expect((await page('?cursor=garbage')).querySelectorAll('#pastes tbody tr')).toHaveLength(4);
  });
});
