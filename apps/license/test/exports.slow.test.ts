import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { download, peakLiveGrowth } from './export-downloads.js';
import { buildTestApp, type TestApp } from './helpers.js';

// The slow half of the export tests (the rest are in exports.test.ts): 40,000 licenses streamed
// while memory is sampled, and a client that stops reading.
describe('exports of 40,000 licenses', () => {
  let t: TestApp;
  let admin: { cookie: string; csrfToken: string };
  const ids = { bulkOwner: '' };

  beforeAll(async () => {
    // Small batches: many batch boundaries in every export, and a low, steady memory floor to measure against.
    t = await buildTestApp({ env: { ADMIN_IDS: 'admin-1', EXPORT_BATCH_SIZE: '250' } });
    admin = await t.signIn('admin-1');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('keeps memory flat while streaming: 40,000 licenses need no more memory than 10,000', async () => {
    const q = (sql: string, params: unknown[] = []) => t.database.pool.query(sql, params);
    const small = (await q(`INSERT INTO products (name, license_prefix) VALUES ('Bulk A', 'BLKA') RETURNING id`))
      .rows[0].id as string;
    const large = (await q(`INSERT INTO products (name, license_prefix) VALUES ('Bulk B', 'BLKB') RETURNING id`))
      .rows[0].id as string;
    const owner = (
      await q(`INSERT INTO customers (name, email) VALUES ('Bulk Buyer', 'bulk@example.com') RETURNING id`)
    ).rows[0].id as string;
    ids.bulkOwner = owner;
    // 10,000 licenses of product A and 30,000 of product B, all of one customer: the customer filter selects 40,000.
    await q(
      `INSERT INTO licenses (key, product_id, customer_id, used_ips)
       SELECT 'BLK-' || substr(md5('b' || g), 1, 24), CASE WHEN g <= 10000 THEN $1::uuid ELSE $2::uuid END, $3,
              ARRAY['192.168.0.' || (g % 250)]
         FROM generate_series(1, 40000) AS g`,
      [small, large, owner],
    );
    const measure = async (route: string) => {
      let bytes = 0;
      const started = Date.now();
      const growth = await peakLiveGrowth(async () => {
        bytes = (await download(t.baseUrl, route, admin.cookie, false)).bytes;
      });
      console.info(`${route}: ${Date.now() - started} ms`);
      return { growth, bytes };
    };
    // The embedded database runs in this process and its memory only grows: read every row once
    // before measuring, so what is measured is the export.
    const started = Date.now();
    await download(t.baseUrl, `/api/export/licenses/csv?customer=${owner}`, admin.cookie, false);
    console.info(`warm-up: ${Date.now() - started} ms`);
    const csvSmall = await measure(`/api/export/licenses/csv?product=${small}`);
    const csvLarge = await measure(`/api/export/licenses/csv?customer=${owner}`);
    const pdfSmall = await measure(`/api/export/licenses/pdf?product=${small}`);
    const pdfLarge = await measure(`/api/export/licenses/pdf?customer=${owner}`);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    console.info(
      `live memory growth: CSV 10k ${mb(csvSmall.growth)} (file ${mb(csvSmall.bytes)}), 40k ${mb(csvLarge.growth)} (file ${mb(csvLarge.bytes)}); ` +
        `PDF 10k ${mb(pdfSmall.growth)} (file ${mb(pdfSmall.bytes)}), 40k ${mb(pdfLarge.growth)} (file ${mb(pdfLarge.bytes)})`,
    );
    // Four times the rows, (nearly) the same peak: the file is never held whole.
    expect(csvLarge.bytes).toBeGreaterThan(3.5 * csvSmall.bytes);
    // Measured: 0.0–2.1 MB for either size, while the 30,000 extra rows are 8 MB of CSV (and far more as row objects).
    expect(csvLarge.growth - csvSmall.growth).toBeLessThan(
      Math.min(4 * 1024 * 1024, 0.5 * (csvLarge.bytes - csvSmall.bytes)),
    );
    expect(csvLarge.growth).toBeLessThan(csvLarge.bytes / 2);
    expect(pdfLarge.bytes).toBeGreaterThan(3.5 * pdfSmall.bytes);
    // pdfkit keeps a small dictionary per finished page (for the cross-reference table at the
    // end), so a PDF grows with its page count by far less than the pages themselves take.
    expect(pdfLarge.growth - pdfSmall.growth).toBeLessThan(0.75 * (pdfLarge.bytes - pdfSmall.bytes));
    expect(pdfLarge.growth).toBeLessThan(8 * 1024 * 1024);
  }, 300_000);

  it('holds no database connection while a slow client reads, and records an export the client abandoned', async () => {
    // The client reads nothing: the export waits for the socket to drain, between two batches.
    const abandoned = await new Promise<http.ClientRequest>((resolve, reject) => {
      const req = http.get(
        `${t.baseUrl}/api/export/licenses/csv?customer=${ids.bulkOwner}`,
        { headers: { Cookie: admin.cookie } },
        (res) => {
          res.pause();
          resolve(req);
        },
      );
      req.on('error', () => {});
      setTimeout(() => reject(new Error('no answer')), 10_000);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Other requests still get the database (the embedded one has a single pooled connection).
    const started = Date.now();
    const products = await request(t.baseUrl).get('/api/products').set('Cookie', admin.cookie);
    expect(products.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    abandoned.destroy();
    let entry: { success: boolean; changes: { after: { aborted?: boolean; rows: number } } } | undefined;
    for (let i = 0; i < 50 && !entry; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const audit = await request(t.baseUrl).get('/api/audit?action=export&success=false').set('Cookie', admin.cookie);
      entry = audit.body.auditLogs[0];
    }
    expect(entry).toMatchObject({ success: false, changes: { after: { aborted: true } } });
    expect(entry!.changes.after.rows).toBeLessThan(40_000);
  });
});
