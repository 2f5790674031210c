import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { summaryStatistics } from '../src/exports/summary-statistics.js';
import { figureReads } from '../src/figure-reads.js';
import { licenseCountsAt } from '../src/licenses/license-counts.repository.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// License and validation counts come from counters (license_counts and usage_counts, migration
// 0008) kept by triggers in the same transaction as each write. These tests fire many different
// writes at once and compare what the API, the dashboard and the summary answer with the same
// figures counted the slow way, over every row.

let t: TestApp;
let admin: Session;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

const DAY = 86_400_000;
const live = 'active AND NOT suspended AND NOT revoked AND (expires_at IS NULL OR expires_at > now())';

/** The number shown in a headline card (`data-stat="<id>"`) of the admin page. */
function stat(page: string, id: string): number | undefined {
  const card =
    new RegExp(`data-stat="${id}"><span class="stat-value">([\\d,]+)</span>`).exec(page) ??
    new RegExp(`<strong data-stat="${id}">([\\d,]+)</strong>`).exec(page);
  return card ? Number(card[1]!.replaceAll(',', '')) : undefined;
}

async function query<T>(sql: string): Promise<T[]> {
  return (await t.database.pool.query(sql)).rows as T[];
}

/** Every figure the API, the dashboard and the summary answer equals the one counted over every row. */
async function expectExact() {
  const perProduct = await query<{ id: string; total: number; active: number }>(
    `SELECT p.id, count(l.id)::int AS total, (count(l.id) FILTER (WHERE l.active AND NOT l.suspended AND NOT l.revoked AND (l.expires_at IS NULL OR l.expires_at > now())))::int AS active
       FROM products p LEFT JOIN licenses l ON l.product_id = p.id GROUP BY p.id`,
  );
  const products = await t.http.get('/api/products?includeCounts=true').set('Cookie', admin.cookie);
  expect(products.status).toBe(200);
  const answered = Object.fromEntries(
    (products.body.products as Array<{ _id: string; licenseCount: number; activeLicenseCount: number }>).map(
      (product) => [product._id, { total: product.licenseCount, active: product.activeLicenseCount }],
    ),
  );
  expect(answered).toEqual(
    Object.fromEntries(perProduct.map((row) => [row.id, { total: row.total, active: row.active }])),
  );

  const [all] = await query<Record<string, number>>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE ${live}))::int AS active,
            (count(*) FILTER (WHERE suspended))::int AS suspended, (count(*) FILTER (WHERE expires_at <= now()))::int AS expired,
            (count(*) FILTER (WHERE revoked))::int AS revoked,
            (count(*) FILTER (WHERE NOT active AND NOT suspended AND NOT revoked))::int AS inactive,
            (count(*) FILTER (WHERE suspended AND NOT revoked))::int AS "suspendedUnrevoked",
            (count(*) FILTER (WHERE expires_at <= now() AND NOT revoked))::int AS "expiredUnrevoked"
       FROM licenses`,
  );
  const [usage] = await query<Record<string, number>>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'success'))::int AS success,
            (count(*) FILTER (WHERE status = 'blocked'))::int AS blocked, (count(*) FILTER (WHERE status = 'invalid'))::int AS invalid,
            (count(*) FILTER (WHERE created_at > now() - interval '24 hours'))::int AS day,
            (count(*) FILTER (WHERE created_at > now() - interval '30 days'))::int AS month
       FROM usage_records`,
  );
  const byType = await query<{ type: string; n: number }>(
    'SELECT license_type AS type, count(*)::int AS n FROM licenses GROUP BY 1',
  );

  const list = await t.http.get('/api/licenses?limit=1').set('Cookie', admin.cookie);
  expect(list.body.total).toBe(all!.total);

  const page = await t.http.get('/').set('Cookie', admin.cookie);
  expect(page.status).toBe(200);
  expect({
    total: stat(page.text, 'licenses-total'),
    active: stat(page.text, 'licenses-active'),
    suspended: stat(page.text, 'licenses-suspended'),
    expired: stat(page.text, 'licenses-expired'),
    validations: stat(page.text, 'validations'),
  }).toEqual({
    total: all!.total,
    active: all!.active,
    suspended: all!.suspended,
    expired: all!.expired,
    validations: usage!.day,
  });

  const summary = await summaryStatistics(figureReads, t.database.pool, new Date());
  expect(summary.licenses).toEqual({
    total: all!.total,
    active: all!.active,
    inactive: all!.inactive,
    suspended: all!.suspendedUnrevoked,
    revoked: all!.revoked,
    expired: all!.expiredUnrevoked,
  });
  expect(summary.licensesByType).toEqual(Object.fromEntries(byType.map((row) => [row.type, row.n])));
  expect(summary.validations).toEqual({
    total: usage!.total,
    success: usage!.success,
    blocked: usage!.blocked,
    invalid: usage!.invalid,
    last30Days: usage!.month,
  });
  expect(Object.fromEntries(summary.licensesByProduct.map((row) => [row.name, row.total]))).toEqual(
    Object.fromEntries(
      (
        await query<{ name: string; n: number }>(
          'SELECT p.name, count(l.id)::int AS n FROM products p LEFT JOIN licenses l ON l.product_id = p.id GROUP BY p.id',
        )
      ).map((row) => [row.name, row.n]),
    ),
  );
  return all!;
}

/** One request of the mix, on its own connection; answers the status. */
async function send(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = admin.headers,
): Promise<number> {
  const response = await fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { ...headers, 'Content-Type': 'application/json', Connection: 'close' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

describe(`license and validation counters under concurrency (${testDatabaseBackend()})`, () => {
  it('are exact after 200 simultaneous creates, deletes, suspensions, revocations, reactivations, expiry changes and validations', async () => {
    const products = [await t.createProduct(), await t.createProduct(), await t.createProduct()];
    const customer = await t.createCustomer();
    const now = Date.now();
    // Expiries on every side of now: none, past, earlier today or yesterday, later today or tomorrow, future.
    const expiries = [
      null,
      new Date(now - 40 * DAY),
      new Date(now - 2 * 3_600_000),
      new Date(now + 2 * 3_600_000),
      new Date(now + 40 * DAY),
    ];
    const types = ['fixed', 'trial', 'consumption', 'enterprise'] as const;
    const existing = [];
    for (let i = 0; i < 60; i += 1) {
      existing.push(
        await t.createLicense({
          product: products[i % 3]!._id,
          customer: i % 2 ? customer._id : undefined,
          licenseType: types[i % 4],
          expiresAt: expiries[i % 5],
          ...(types[i % 4] === 'consumption' ? { credits: 5 } : {}),
        }),
      );
    }
    // Validations recorded before the window of the last 24 hours and of the last 30 days.
    await t.database.pool.query(
      `INSERT INTO usage_records (license_id, status, created_at)
       SELECT $1, s, now() - make_interval(hours => h) FROM unnest(ARRAY['success', 'blocked', 'invalid']) s, generate_series(1, 800, 37) h`,
      [existing[0]!._id],
    );
    await expectExact();

    const requests: Array<Promise<number>> = [];
    for (let i = 0; i < 70; i += 1) {
      requests.push(
        send('POST', '/api/licenses', {
          product: products[i % 3]!._id,
          licenseType: types[i % 4],
          ...(types[i % 4] === 'consumption' ? { credits: 3 } : {}),
          ...(expiries[i % 5] ? { expiresAt: expiries[i % 5]!.toISOString() } : {}),
        }),
      );
    }
    for (let i = 0; i < 15; i += 1) requests.push(send('DELETE', `/api/licenses/${existing[i]!._id}`));
    for (let i = 15; i < 35; i += 1)
      requests.push(send('POST', `/api/licenses/${existing[i]!._id}/suspend`, { reason: 'test' }));
    for (let i = 25; i < 40; i += 1)
      requests.push(send('POST', `/api/licenses/${existing[i]!._id}/revoke`, { reason: 'test' }));
    for (let i = 15; i < 25; i += 1) requests.push(send('POST', `/api/licenses/${existing[i]!._id}/reactivate`));
    for (let i = 40; i < 50; i += 1) {
      requests.push(
        send('PUT', `/api/licenses/${existing[i]!._id}`, {
          expiresAt: expiries[(i + 1) % 5] ? expiries[(i + 1) % 5]!.toISOString() : null,
        }),
      );
    }
    for (let i = 0; i < 60; i += 1) {
      const key = i % 10 === 9 ? 'TEST-unknown' : existing[i % 60]!.key;
      requests.push(send('POST', '/api/license/validate', { key, ip: `198.51.100.${i}` }, {}));
    }
    expect(requests).toHaveLength(200);
    const statuses = await Promise.all(requests);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    const figures = await expectExact();
    expect(figures.total).toBe(60 + 70 - 15);
  }, 120_000);

  it('counts a license as active until the instant it expires and as expired from then on, on a fixed clock', async () => {
    const now = new Date();
    const product = await t.createProduct();
    await t.createLicense({ product: product._id, expiresAt: new Date(now.getTime() + 1_000) });
    const read = (at: Date) => licenseCountsAt(t.database.pool, at, product._id);
    expect((await read(now))[0]).toMatchObject({ total: 1, active: 1, expired: 0 });
    expect((await read(new Date(now.getTime() + 2_000)))[0]).toMatchObject({ total: 1, active: 0, expired: 1 });
    expect((await read(new Date(now.getTime() + 3 * DAY)))[0]).toMatchObject({ total: 1, active: 0, expired: 1 });
    expect((await read(new Date(now.getTime() - 3 * DAY)))[0]).toMatchObject({ total: 1, active: 1, expired: 0 });
  });
});

describe(`GET /api/licenses pages by cursor (${testDatabaseBackend()})`, () => {
  it('walking nextCursor gives the same licenses in the same order as limit/skip, ties of one instant included', async () => {
    const product = await t.createProduct();
    // Licenses made in one statement share created_at to the microsecond: the cursor must not skip or repeat them.
    await t.database.pool.query(
      `INSERT INTO licenses (key, product_id) SELECT 'TIE-' || g, $1 FROM generate_series(1, 7) g`,
      [product._id],
    );
    for (let i = 0; i < 5; i += 1) await t.createLicense({ product: product._id });
    const byOffset = await t.http.get(`/api/licenses?product=${product._id}&limit=100`).set('Cookie', admin.cookie);
    expect(byOffset.body.total).toBe(12);
    const expected = (byOffset.body.licenses as Array<{ key: string }>).map((license) => license.key);

    const walked: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const response: {
        status: number;
        body: { total: number; licenses: Array<{ key: string }>; nextCursor: string | null };
      } = await t.http
        .get(`/api/licenses?product=${product._id}&limit=5${cursor ? `&cursor=${cursor}` : ''}`)
        .set('Cookie', admin.cookie);
      expect(response.status).toBe(200);
      expect(response.body.total).toBe(12);
      walked.push(...(response.body.licenses as Array<{ key: string }>).map((license) => license.key));
      cursor = response.body.nextCursor;
      if (!cursor) break;
    }
    expect(walked).toEqual(expected);

    const skipped = await t.http.get(`/api/licenses?product=${product._id}&limit=5&skip=5`).set('Cookie', admin.cookie);
    expect((skipped.body.licenses as Array<{ key: string }>).map((license) => license.key)).toEqual(
      expected.slice(5, 10),
    );
    const bad = await t.http.get('/api/licenses?cursor=not-a-cursor').set('Cookie', admin.cookie);
    expect(bad.status).toBe(400);
  });
});
