import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { createJobQueue } from '@app/events';
import { createLogger } from '@app/http';
import { DELETE_EXPIRED_JOB, scheduleAutoDelete } from '../src/auto-delete/auto-delete.job.js';
import { expiresText } from '../src/rendering/expiry-text.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Moves a paste's time limit into the past, as if its time had run out. */
const expireNow = (slug: string) =>
  site.database.pool.query(`UPDATE pastes SET expires_at = now() - interval '1 second' WHERE slug = $1`, [slug]);
const create = (body: Record<string, unknown>) => site.http.post('/api/paste').send(body);

describe(`time expiry on create (${testDatabaseBackend()})`, () => {
  it('expiresIn answers expiresAt (ISO) that many seconds ahead; without a limit expiresAt is null', async () => {
    const before = Date.now();
    const response = await create({ content: 'soon gone', expiresIn: 600 });
    expect(response.status).toBe(200);
    const at = Date.parse(response.body.expiresAt);
    expect(response.body.expiresAt).toBe(new Date(at).toISOString());
    expect(at).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    expect((await create({ content: 'forever' })).body.expiresAt).toBeNull();
  });

  it('expiresAt (ISO 8601, with Z or an offset) is stored and answered as given', async () => {
    const target = new Date(Date.now() + 86_400_000);
    target.setUTCMilliseconds(0);
    const response = await create({ content: 'tomorrow', expiresAt: target.toISOString() });
    expect(response.status).toBe(200);
    expect(response.body.expiresAt).toBe(target.toISOString());
    const offset = target.toISOString().replace('Z', '+00:00');
    expect((await create({ content: 'offset', expiresAt: offset })).body.expiresAt).toBe(target.toISOString());
  });

  it('both expiresIn and expiresAt answer 400 with a readable detail', async () => {
    const response = await create({
      content: 'x',
      expiresIn: 60,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { expiresAt: 'Give either expiresIn or expiresAt, not both' },
    });
    expect(await site.database.pool.query('SELECT 1 FROM pastes')).toMatchObject({ rowCount: 0 });
  });

  it.each([
    { expiresIn: 0, field: 'expiresIn' },
    { expiresIn: 31_536_001, field: 'expiresIn' },
    { expiresIn: 1.5, field: 'expiresIn' },
    { expiresIn: 'soon', field: 'expiresIn' },
    { expiresAt: 'tomorrow', field: 'expiresAt' },
    { expiresAt: '2020-01-01T00:00:00Z', field: 'expiresAt' },
    { expiresAt: new Date(Date.now() + 367 * 86_400_000).toISOString(), field: 'expiresAt' },
  ])('refuses $field $expiresIn$expiresAt with 400 and a detail for people', async ({ field, ...limit }) => {
    const response = await create({ content: 'x', ...limit });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(Object.keys(response.body.details)).toEqual([field]);
    expect(response.body.details[field]).toMatch(new RegExp(`^${field} must `));
  });

  it('takes the longest limit (31536000 seconds) and a form post of expiresIn as text', async () => {
    expect((await create({ content: 'a year', expiresIn: 31_536_000 })).status).toBe(200);
    const form = await site.http.post('/api/paste').type('form').send({ content: 'form', expiresIn: '3600' });
    expect(form.status).toBe(200);
    expect(Date.parse(form.body.expiresAt) - Date.now()).toBeGreaterThan(3_590_000);
  });
});

describe(`a paste past its time limit (${testDatabaseBackend()})`, () => {
  it('expiresIn: 2 is shown before and answers 410 `Paste expired` after 3 s (page, raw and HEAD)', async () => {
    const { body } = await create({ content: 'two seconds', expiresIn: 2 });
    expect((await site.http.get(`/paste/${body.slug}`)).status).toBe(200);
    await sleep(3000);
    const page = await site.http.get(`/paste/${body.slug}`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('Paste expired');
    expect(page.text).not.toContain('two seconds');
    const raw = await site.http.get(`/paste/${body.slug}/raw`);
    expect(raw.status).toBe(410);
    expect(raw.text).toBe('Paste expired\n');
    expect((await site.http.head(`/paste/${body.slug}`)).status).toBe(410);
  });

  it('a used-up view limit answers the same 410 `Paste expired`', async () => {
    const slug = await site.createPaste({ content: 'once', maxViews: 1 });
    expect((await site.http.get(`/paste/${slug}/raw`)).status).toBe(200);
    const raw = await site.http.get(`/paste/${slug}/raw`);
    expect([raw.status, raw.text]).toEqual([410, 'Paste expired\n']);
  });

  it('with both limits the first reached wins: the view limit, or the time limit', async () => {
    const byViews = await site.createPaste({ content: 'views first', maxViews: 1, expiresIn: 3600 });
    expect((await site.http.get(`/paste/${byViews}`)).status).toBe(200);
    expect((await site.http.get(`/paste/${byViews}`)).status).toBe(410);

    const byTime = await site.createPaste({ content: 'time first', maxViews: 5, expiresIn: 3600 });
    expect((await site.http.get(`/paste/${byTime}`)).status).toBe(200);
    await expireNow(byTime);
    expect((await site.http.get(`/paste/${byTime}`)).status).toBe(410);
    const { rows } = await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [byTime]);
    expect(rows[0].views_count).toBe(1);
  });

  it('a password paste past its time answers 410, not the password form, and verify cannot bring it back', async () => {
    const slug = await site.createPaste({ content: 'secret', password: 'pw', expiresIn: 3600 });
    await expireNow(slug);
    expect((await site.http.get(`/paste/${slug}`)).status).toBe(410);
    const agent = request.agent(site.baseUrl);
    await agent.post(`/paste/${slug}/verify`).send({ password: 'pw' });
    expect((await agent.get(`/paste/${slug}`)).status).toBe(410);
  });

  it('simultaneous views of a paste with both limits: exactly maxViews are shown; once expired, none', async () => {
    const slug = await site.createPaste({ content: 'race', maxViews: 3, expiresIn: 3600 });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${site.baseUrl}/paste/${slug}/raw`, { headers: { Connection: 'close' } }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 410)).toHaveLength(57);

    const late = await site.createPaste({ content: 'late', maxViews: 100, expiresIn: 3600 });
    await expireNow(late);
    const lateStatuses = await Promise.all(
      Array.from({ length: 30 }, () => fetch(`${site.baseUrl}/paste/${late}`).then((response) => response.status)),
    );
    expect(new Set(lateStatuses)).toEqual(new Set([410]));
    const { rows } = await site.database.pool.query('SELECT views_count FROM pastes WHERE slug = $1', [late]);
    expect(rows[0].views_count).toBe(0);
  });
});

describe(`deleting expired pastes, and the statistics (${testDatabaseBackend()})`, () => {
  const stats = async () => {
    const owner = await site.session(OWNER_ID);
    const response = await site.http.get('/api/stats').set('Cookie', owner.cookie);
    expect(response.status).toBe(200);
    return response.body;
  };

  it('the statistics leave out a paste from the instant it expires, and stay the same once the job deletes it', async () => {
    const kept = await site.createPaste({ content: 'kept!' });
    const limited = await site.createPaste({ content: 'limited', expiresIn: 3600 });
    const gone = await site.createPaste({ content: 'gone away, much longer content', expiresIn: 3600 });
    for (const slug of [kept, kept, limited, gone, gone, gone])
      expect((await site.http.get(`/paste/${slug}`)).status).toBe(200);
    const all = await stats();
    expect(all).toMatchObject({ totalPastes: 3, totalViews: 6, mostViewed: 3, apiUsage: 3, last30Days: 3 });

    await expireNow(gone);
    const expected = {
      totalPastes: 2,
      totalViews: 3,
      last30Days: 2,
      apiUsage: 3,
      mostViewed: 2,
      avgViews: 1.5,
      avgPasteSize: `${Math.round(('kept!'.length + 'limited'.length) / 2)} characters`,
      storageUsed: `${'kept!'.length + 'limited'.length} B`,
    };
    expect(await stats()).toEqual(expected);

    expect(await site.paste.pastes.deleteExpired()).toBe(1);
    expect(await stats()).toEqual(expected);
    const { rows } = await site.database.pool.query('SELECT content FROM pastes ORDER BY content');
    expect(rows.map((row) => row.content)).toEqual(['kept!', 'limited']);

    // Any other deletion leaves exact figures too (the next test deletes with the token).
    await site.database.pool.query('DELETE FROM pastes WHERE slug = $1', [limited]);
    expect(await stats()).toEqual({
      ...expected,
      totalPastes: 1,
      totalViews: 2,
      last30Days: 1,
      avgViews: 2,
      avgPasteSize: '5 characters',
      storageUsed: '5 B',
    });
  });

  it('a paste deleted with its token, and one expired and deleted, leave exact figures (API usage keeps counting creations)', async () => {
    const first = await create({ content: 'aaaa', expiresIn: 3600 });
    const second = await create({ content: 'bb' });
    await site.http.get(`/paste/${second.body.slug}`);
    const removed = await site.http
      .delete(`/api/paste/${first.body.slug}`)
      .set('X-Delete-Token', first.body.deleteToken);
    expect(removed.status).toBe(200);
    const third = await create({ content: 'cccccc', expiresIn: 3600 });
    await expireNow(third.body.slug);
    await site.paste.pastes.deleteExpired();
    expect(await stats()).toEqual({
      totalPastes: 1,
      totalViews: 1,
      last30Days: 1,
      apiUsage: 3,
      avgPasteSize: '2 characters',
      mostViewed: 1,
      avgViews: 1,
      storageUsed: '2 B',
    });
  });

  it('the scheduled job deletes expired pastes (at start-up and every minute) and keeps the others', async () => {
    const live = await site.createPaste({ content: 'live', expiresIn: 3600 });
    const forever = await site.createPaste({ content: 'forever' });
    const expired = await site.createPaste({ content: 'expired', expiresIn: 3600 });
    await expireNow(expired);
    const queue = await createJobQueue({
      pool: site.database.pool,
      logger: createLogger({ level: 'silent' }),
      pollingIntervalSeconds: 0.5,
    });
    let stop: (() => void) | undefined;
    try {
      stop = await scheduleAutoDelete({
        queue,
        pastes: site.paste.pastes,
        settings: site.settings,
        logger: createLogger({ level: 'silent' }),
      });
      const slugs = async () =>
        (await site.database.pool.query('SELECT slug FROM pastes ORDER BY slug')).rows.map((row) => row.slug as string);
      await expect.poll(slugs, { timeout: 15_000, interval: 200 }).toEqual([live, forever].sort());
      const { rows } = await site.database.pool.query('SELECT cron FROM pgboss.schedule WHERE name = $1', [
        DELETE_EXPIRED_JOB,
      ]);
      expect(rows).toEqual([{ cron: '* * * * *' }]);
    } finally {
      stop?.();
      await queue.stop();
    }
  });
});

describe(`expiry in the pages (${testDatabaseBackend()})`, () => {
  it('the form offers the time limits in a labelled select', async () => {
    const home = await site.http.get('/');
    expect(home.text).toMatch(
      /<label class="field"><span class="label">Expire after time<\/span>\s*<select id="expiresIn" name="expiresIn">/,
    );
    const options = [...home.text.matchAll(/<option value="(\d*)">([^<]+)<\/option>/g)].map((match) => [
      match[1],
      match[2],
    ]);
    expect(options).toEqual([
      ['', 'Never'],
      ['600', '10 minutes'],
      ['3600', '1 hour'],
      ['86400', '1 day'],
      ['604800', '1 week'],
      ['2592000', '1 month'],
    ]);
    expect(home.text).toMatch(
      /<input type="checkbox" id="revealOnClick" name="revealOnClick"> Reveal on click<\/label>/,
    );
  });

  it("the paste page and the creator's page say when the paste expires", async () => {
    const browser = request.agent(site.baseUrl);
    const { body: token } = await browser.get('/api/csrf-token');
    const created = await browser
      .post('/api/paste')
      .set('X-CSRF-Token', token.csrfToken)
      .send({ content: 'three hours', expiresIn: 3 * 3600 });
    const page = await browser.get(`/paste/${created.body.slug}/created`);
    expect(page.text).toMatch(
      /Time limit<\/dt><dd><time datetime="[^"]+" title="[^"]+ UTC">expires in 3 hours<\/time>/,
    );
    const shown = await site.http.get(`/paste/${created.body.slug}`);
    expect(shown.text).toContain('expires in 3 hours');
    const plain = await site.createPaste({ content: 'no limit' });
    expect((await site.http.get(`/paste/${plain}`)).text).not.toContain('expires in');
  });

  it('words the time left for people', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const after = (seconds: number) => expiresText(new Date(now.getTime() + seconds * 1000), now);
    expect(after(20)).toBe('expires in less than a minute');
    expect(after(60)).toBe('expires in 1 minute');
    expect(after(599)).toBe('expires in 10 minutes');
    expect(after(3599)).toBe('expires in 1 hour');
    expect(after(3 * 3600)).toBe('expires in 3 hours');
    expect(after(86_400)).toBe('expires in 24 hours');
    expect(after(7 * 86_400)).toBe('expires in 7 days');
    expect(after(-5)).toBe('expired');
  });
});
