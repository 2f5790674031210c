import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { lineChartSvg } from '@app/ui';
import { documentOf } from '@app/ui/testing/dom';
import { buildTestApp, type TestApp } from './helpers.js';

// Validation analytics (decisions.md, Wave 4, "License service: insight"): daily rollups per
// product and license, exact under concurrency, through GET /api/analytics/validations and
// GET /api/licenses/:id/analytics, and their CSV.

let t: TestApp;
let other: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  // A second instance on the same database: its batches run beside the first one's.
  other = await buildTestApp({ database: t.database });
});
afterAll(async () => {
  await other?.close();
  await t?.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const validate = (app: TestApp, body: Record<string, unknown>) =>
  fetch(`${app.baseUrl}/api/license/validate`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  }).then((res) => res.status);
const get = async (path: string) => t.http.get(path).set((await t.admin()).headers);
const dayOf = (body: { days: Array<{ date: string }> }, date = today()) => body.days.find((day) => day.date === date);

describe(`validation analytics (${testDatabaseBackend()})`, () => {
  it('counts N simultaneous validations on two instances as exactly N, with distinct machines and addresses', async () => {
    const product = await t.createProduct();
    const license = await t.createLicense({ product: product._id, ipLimit: 0, hwidLimit: 0 });
    const limited = await t.createLicense({ product: product._id, ipLimit: 3 });
    const n = 160;
    const statuses = await Promise.all([
      ...Array.from({ length: n }, (_, i) =>
        validate(i % 2 ? t : other, { key: license.key, ip: `10.57.0.${i % 7}`, hwid: `hw-${i % 5}` }),
      ),
      ...Array.from({ length: 40 }, (_, i) => validate(i % 2 ? t : other, { key: limited.key, ip: `10.58.0.${i}` })),
      ...Array.from({ length: 10 }, (_, i) => validate(i % 2 ? t : other, { key: `NO-SUCH-KEY-${i}` })),
    ]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(n + 3);

    const one = await get(`/api/licenses/${license._id}/analytics`);
    expect(one.status).toBe(200);
    expect(one.body.days).toHaveLength(30);
    expect(one.body.to).toBe(today());
    expect(dayOf(one.body)).toEqual({ date: today(), ok: n, refused: {}, machines: 5, addresses: 7 });

    const capped = await get(`/api/licenses/${limited._id}/analytics?from=${today()}&to=${today()}`);
    expect(capped.body.days).toEqual([
      { date: today(), ok: 3, refused: { 'IP limit exceeded': 37 }, machines: 0, addresses: 40 },
    ]);

    const ofProduct = await get(`/api/analytics/validations?productId=${product._id}&from=${today()}&to=${today()}`);
    expect(ofProduct.status).toBe(200);
    expect(ofProduct.body).toEqual({
      success: true,
      from: today(),
      to: today(),
      days: [{ date: today(), ok: n + 3, refused: { 'IP limit exceeded': 37 }, machines: 5, addresses: 47 }],
    });
    // Every product's: unknown keys count too.
    const all = await get(`/api/analytics/validations?from=${today()}&to=${today()}`);
    expect(all.body.days[0].refused['License not found']).toBeGreaterThanOrEqual(10);

    // The rollups agree with the raw records, row for row.
    const { rows } = await t.database.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM usage_records WHERE license_id = $1',
      [license._id],
    );
    expect(rows[0]!.n).toBe(n);
  });

  it('answers every day of the window, zeros included, and refuses bad windows with 400', async () => {
    const license = await t.createLicense();
    const window = await get(`/api/licenses/${license._id}/analytics?from=2026-02-27&to=2026-03-02`);
    expect(window.body.days.map((day: { date: string }) => day.date)).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
    expect(window.body.days[0]).toEqual({ date: '2026-02-27', ok: 0, refused: {}, machines: 0, addresses: 0 });
    for (const query of [
      'from=2026-03-02&to=2026-03-01',
      'from=2026-02-30',
      'to=yesterday',
      'from=2024-01-01&to=2025-12-31',
    ]) {
      const refused = await get(`/api/analytics/validations?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error).toBe('Validation failed');
    }
    expect((await get('/api/analytics/validations?productId=nope')).status).toBe(400);
  });

  it('answers 404 for an unknown license or product, and 401 without an admin', async () => {
    const missing = await get('/api/licenses/00000000-0000-4000-8000-000000000000/analytics');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('License not found');
    expect((await get('/api/licenses/not-an-id/analytics')).status).toBe(404);
    const product = await get('/api/analytics/validations?productId=00000000-0000-4000-8000-000000000000');
    expect(product.status).toBe(404);
    expect(product.body.error).toBe('Product not found');
    expect((await t.http.get('/api/analytics/validations')).status).toBe(401);
    expect((await t.http.get('/api/analytics/validations/csv')).status).toBe(401);
    const { session } = await t.customer();
    expect((await t.http.get('/api/analytics/validations').set(session.headers)).status).toBe(403);
  });

  it('exports both as CSV, a column per refusal text', async () => {
    const license = await t.createLicense({ ipLimit: 1 });
    await validate(t, { key: license.key, ip: '10.59.0.1' });
    await validate(t, { key: license.key, ip: '10.59.0.2' });
    const csv = await get(`/api/licenses/${license._id}/analytics/csv?from=${today()}&to=${today()}`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="license-validations-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(csv.text).toBe(
      `"date","ok","refused","machines","addresses","refused: IP limit exceeded"\n"${today()}",1,1,0,2,1\n`,
    );
    const all = await get(`/api/analytics/validations/csv?from=2026-01-01&to=2026-01-02`);
    expect(all.status).toBe(200);
    expect(all.text).toBe(`"date","ok","refused","machines","addresses"\n"2026-01-01",0,0,0,0\n"2026-01-02",0,0,0,0\n`);
  });
});

describe('the line chart of active machines', () => {
  it('draws one point per day through d3 scales, escapes its texts, and has its table', () => {
    const hostile = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    const svg = lineChartSvg({
      id: 'm',
      title: hostile,
      description: hostile,
      labels: ['2026-11-24', '2026-11-25', '2026-11-26'],
      series: { name: 'machines', className: 'chart-info', values: [0, 3, 1] },
      height: 200,
    });
    expect(svg).not.toContain('<script>');
    const document = documentOf(`<body>${svg}</body>`);
    const root = document.querySelector('svg')!;
    expect(root.getAttribute('role')).toBe('img');
    expect(root.querySelector('title')?.textContent).toBe(hostile);
    // Scale 0..4 over y 174..18 and three points at the middle of their thirds of 1000.
    expect(root.querySelector('path.chart-stroke')?.getAttribute('d')).toBe('M166.667,174L500,57L833.333,135');
    expect([...root.querySelectorAll('g.chart-bar > title')].map((title) => title.textContent)).toEqual([
      '2026-11-24: 0 machines',
      '2026-11-25: 3 machines',
      '2026-11-26: 1 machines',
    ]);
    expect([...document.querySelectorAll('#m-table tbody tr')].map((row) => row.textContent)).toEqual([
      '2026-11-240',
      '2026-11-253',
      '2026-11-261',
    ]);
  });
});
