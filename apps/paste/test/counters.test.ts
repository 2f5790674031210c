import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// The statistics come from counters (paste_stats, migration 0005) kept in the same transaction
// as each write. These tests fire many different writes at once and compare GET /api/stats with
// the figures counted the slow way, over every paste, as decisions.md defines them.

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

/** The statistics counted from the pastes themselves (the full scan the counters replace). */
async function groundTruth() {
  const { rows } = await site.database.pool.query(`
    SELECT count(*)::int AS "totalPastes", coalesce(sum(views_count), 0)::bigint AS "totalViews",
           (count(*) FILTER (WHERE created_at > now() - interval '30 days'))::int AS "last30Days",
           coalesce(round(avg(char_length(content))), 0)::bigint AS "avgChars",
           coalesce(max(views_count), 0)::int AS "mostViewed", coalesce(sum(octet_length(content)), 0)::bigint AS bytes
      FROM pastes WHERE expires_at IS NULL OR expires_at > now()`);
  return rows[0] as {
    totalPastes: number;
    totalViews: number;
    last30Days: number;
    avgChars: number;
    mostViewed: number;
    bytes: number;
  };
}

async function stats() {
  const owner = await site.session(OWNER_ID);
  const response = await site.http.get('/api/stats').set('Cookie', owner.cookie);
  expect(response.status).toBe(200);
  return response.body as Record<string, number | string>;
}

/** The API's figures equal the ones counted over every paste. */
async function expectExact() {
  const truth = await groundTruth();
  const body = await stats();
  expect({
    totalPastes: body.totalPastes,
    totalViews: body.totalViews,
    last30Days: body.last30Days,
    mostViewed: body.mostViewed,
    avgPasteSize: body.avgPasteSize,
  }).toEqual({
    totalPastes: truth.totalPastes,
    totalViews: Number(truth.totalViews),
    last30Days: truth.last30Days,
    mostViewed: truth.mostViewed,
    avgPasteSize: `${Number(truth.avgChars)} characters`,
  });
  const { rows } = await site.database.pool.query(
    `SELECT (SELECT coalesce(sum(bytes), 0) FROM paste_stats)::bigint AS counted,
            (SELECT coalesce(sum(octet_length(content)), 0) FROM pastes)::bigint AS stored`,
  );
  expect(Number(rows[0].counted)).toBe(Number(rows[0].stored));
  return body;
}

type Created = { slug: string; deleteToken: string };

async function create(content: string, extra: Record<string, unknown> = {}): Promise<Created> {
  const response = await fetch(`${site.baseUrl}/api/paste`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Connection: 'close' },
    body: JSON.stringify({ content, ...extra }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Created;
}

/** One request of the mix, on its own connection; answers the status. */
async function send(path: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(`${site.baseUrl}${path}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), Connection: 'close' },
  });
  await response.arrayBuffer();
  return response.status;
}

describe(`statistics counters under concurrency (${testDatabaseBackend()})`, () => {
  it('are exact after 200 simultaneous creates, views, deletes (by token and by the owner) and clear-alls', async () => {
    const owner = await site.session(OWNER_ID);
    const ownerHeaders = { Cookie: owner.cookie, 'X-CSRF-Token': owner.csrf };
    const existing: Created[] = [];
    for (let i = 0; i < 60; i += 1) {
      existing.push(
        await create(
          `existing ${i} ${'é'.repeat(i)}`,
          i % 3 === 0 ? { expiresIn: 3600 } : i % 3 === 1 ? { maxViews: 3 } : {},
        ),
      );
    }
    // Two of them past their time limit and not yet deleted by the job: gone from the figures.
    await site.database.pool.query(`UPDATE pastes SET expires_at = now() - interval '1 second' WHERE slug = ANY($1)`, [
      [existing[0]!.slug, existing[3]!.slug],
    ]);
    // One of them made long ago, outside the last 30 days.
    await site.database.pool.query(`UPDATE pastes SET created_at = now() - interval '40 days' WHERE slug = $1`, [
      existing[4]!.slug,
    ]);
    await expectExact();

    const requests: Array<Promise<number>> = [];
    for (let i = 0; i < 90; i += 1) {
      const body = JSON.stringify({
        content: `new ${i} ${'ü'.repeat(i % 7)}`,
        ...(i % 4 === 0 ? { expiresIn: 3600 } : {}),
        ...(i % 5 === 0 ? { maxViews: 2 } : {}),
      });
      requests.push(send('/api/paste', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }));
    }
    for (let i = 0; i < 60; i += 1) requests.push(send(`/paste/${existing[i % 30]!.slug}/raw`));
    for (let i = 30; i < 50; i += 1)
      requests.push(
        send(`/api/paste/${existing[i]!.slug}`, {
          method: 'DELETE',
          headers: { 'X-Delete-Token': existing[i]!.deleteToken },
        }),
      );
    for (let i = 50; i < 58; i += 1)
      requests.push(send(`/api/paste/${existing[i]!.slug}`, { method: 'DELETE', headers: ownerHeaders }));
    for (let i = 0; i < 2; i += 1)
      requests.push(send('/api/admin/clear-pastes', { method: 'POST', headers: ownerHeaders }));
    for (let i = 0; i < 20; i += 1) requests.push(send(`/paste/${existing[(i * 7) % 60]!.slug}`));
    expect(requests).toHaveLength(200);
    const statuses = await Promise.all(requests);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    await expectExact();

    // A second wave without clear-all, so that the figures end far from zero.
    const survivors = (
      await site.database.pool.query<{ slug: string }>('SELECT slug FROM pastes ORDER BY id')
    ).rows.map((row) => row.slug);
    const wave: Array<Promise<number>> = [];
    const made: Array<Promise<Created>> = [];
    for (let i = 0; i < 100; i += 1) made.push(create(`second wave ${i}`, i % 3 === 0 ? { expiresIn: 3600 } : {}));
    for (let i = 0; i < 100; i += 1)
      if (survivors.length) wave.push(send(`/paste/${survivors[i % survivors.length]!}`));
    await Promise.all([...made, ...wave]);
    const second = await Promise.all(
      (await Promise.all(made))
        .slice(0, 40)
        .map((paste, i) =>
          i % 2 === 0
            ? send(`/api/paste/${paste.slug}`, { method: 'DELETE', headers: { 'X-Delete-Token': paste.deleteToken } })
            : send(`/paste/${paste.slug}`),
        ),
    );
    expect(second.every((status) => status === 200)).toBe(true);
    const body = await expectExact();
    expect(body.totalPastes).toBeGreaterThanOrEqual(80);

    // The expiry job's deletion changes nothing that was not already left out.
    await site.database.pool.query(
      `UPDATE pastes SET expires_at = now() - interval '1 second' WHERE id IN (SELECT id FROM pastes ORDER BY id LIMIT 5)`,
    );
    const beforeJob = await expectExact();
    await site.paste.pastes.deleteExpired();
    expect(await expectExact()).toEqual(beforeJob);
  }, 120_000);

  it('counts pastes of the day the 30 days begin on exactly, on either side of the instant', async () => {
    const inside = await create('inside the window');
    const outside = await create('outside the window');
    const old = await create('long ago');
    await site.database.pool.query(
      `UPDATE pastes SET created_at = now() - interval '30 days' + interval '1 minute' WHERE slug = $1`,
      [inside.slug],
    );
    await site.database.pool.query(
      `UPDATE pastes SET created_at = now() - interval '30 days' - interval '1 minute' WHERE slug = $1`,
      [outside.slug],
    );
    await site.database.pool.query(`UPDATE pastes SET created_at = now() - interval '400 days' WHERE slug = $1`, [
      old.slug,
    ]);
    const body = await expectExact();
    expect(body).toMatchObject({ totalPastes: 3, last30Days: 1 });
  });
});
