import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import { extractText, getDocumentProxy } from 'unpdf';
import { escapeFormula } from '../src/exports/csv.js';
import { download } from './export-downloads.js';
import { buildTestApp, type TestApp } from './helpers.js';

/**
 * The text of each page of a PDF, read by PDF.js (through unpdf: pure JavaScript, so the tests
 * need nothing installed beside Node). unpdf 1.7 is the last release that runs on Node 20.
 */
async function pdfPages(pdf: Buffer): Promise<string[]> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  try {
    return (await extractText(document, { mergePages: false })).text;
  } finally {
    await document.destroy();
  }
}
const pdfToText = async (pdf: Buffer) => (await pdfPages(pdf)).join('\n');

const EVIL_NAME = '=HYPERLINK("http://evil.example","click")';

describe('exports', () => {
  let t: TestApp;
  let admin: { cookie: string; csrfToken: string };
  const ids = { main: '', other: '', evil: '', plain: '' };

  beforeAll(async () => {
    // Small batches: many batch boundaries in every export, and a low, steady memory floor to measure against.
    t = await buildTestApp({ env: { ADMIN_IDS: 'admin-1,admin-2', EXPORT_BATCH_SIZE: '250' } });
    admin = await t.signIn('admin-1');
    const q = (sql: string, params: unknown[] = []) => t.database.pool.query(sql, params);
    ids.main = (
      await q(`INSERT INTO products (name, license_prefix) VALUES ('Export Pro', 'EXP') RETURNING id`)
    ).rows[0].id;
    ids.other = (
      await q(`INSERT INTO products (name, license_prefix) VALUES ('+Other', 'OTH') RETURNING id`)
    ).rows[0].id;
    ids.evil = (
      await q(`INSERT INTO customers (name, email) VALUES ($1, '@evil.example') RETURNING id`, [EVIL_NAME])
    ).rows[0].id;
    ids.plain = (
      await q(`INSERT INTO customers (name, email) VALUES ('Plain Customer', 'plain@example.com') RETURNING id`)
    ).rows[0].id;
    // 10,000 licenses: 9,990 of the main product, every 7th of the evil customer, types and states mixed.
    await q(
      `INSERT INTO licenses (key, product_id, customer_id, license_type, active, ip_limit, hwid_limit, used_ips, used_hwids,
                             credits_total, credits_used, expires_at)
       SELECT 'EXP-' || substr(md5(g::text), 1, 24), $1,
              CASE WHEN g % 7 = 0 THEN $2::uuid WHEN g % 7 = 1 THEN NULL ELSE $3::uuid END,
              (ARRAY['fixed','trial','consumption','enterprise'])[1 + g % 4], g % 5 <> 0, g % 3, 2,
              CASE WHEN g % 11 = 0 THEN ARRAY['10.0.0.' || (g % 250), '-1+cmd'] ELSE '{}'::text[] END,
              CASE WHEN g % 13 = 0 THEN ARRAY['@hw' || g] ELSE '{}'::text[] END,
              CASE WHEN g % 4 = 2 THEN 100 ELSE 0 END, CASE WHEN g % 4 = 2 THEN g % 100 ELSE 0 END,
              CASE WHEN g % 2 = 0 THEN now() + interval '30 days' ELSE NULL END
         FROM generate_series(1, 9990) AS g`,
      [ids.main, ids.evil, ids.plain],
    );
    await q(
      `INSERT INTO licenses (key, product_id, customer_id, license_type)
       SELECT 'OTH-' || substr(md5('o' || g), 1, 24), $1, $2, 'trial' FROM generate_series(1, 10) AS g`,
      [ids.other, ids.plain],
    );
    await q(
      `INSERT INTO transactions (customer_id, product_id, amount, currency, status, external_id, created_at)
       SELECT CASE WHEN g % 2 = 0 THEN $1::uuid ELSE $2::uuid END, $3, g * 1.5, 'usd',
              (ARRAY['pending','processing','completed','failed','refunded','cancelled'])[1 + g % 6],
              CASE WHEN g = 1 THEN '-2+3' ELSE 'cs_' || g END, timestamptz '2026-01-01T00:00:00Z' + g * interval '1 day'
         FROM generate_series(1, 60) AS g`,
      [ids.evil, ids.plain, ids.main],
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const routes = [
    '/api/export/licenses/csv',
    '/api/export/licenses/pdf',
    '/api/export/transactions/csv',
    '/api/export/summary/pdf',
  ];

  it.each(routes)('%s answers 401 without a session and 403 to a user who is not an admin', async (route) => {
    const anonymous = await request(t.baseUrl).get(route);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, error: 'Unauthorized' });
    const user = await t.signIn('customer-x');
    const refused = await request(t.baseUrl).get(route).set('Cookie', user.cookie);
    expect(refused.status).toBe(403);
    expect(refused.body.success).toBe(false);
  });

  it.each([
    {
      route: '/api/export/licenses/csv?licenseType=fixed',
      type: /^text\/csv/,
      file: /^attachment; filename="licenses-\d{4}-\d{2}-\d{2}\.csv"$/,
    },
    {
      route: '/api/export/licenses/pdf?licenseType=fixed',
      type: /^application\/pdf$/,
      file: /^attachment; filename="licenses-\d{4}-\d{2}-\d{2}\.pdf"$/,
    },
    {
      route: '/api/export/transactions/csv',
      type: /^text\/csv/,
      file: /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
    },
    {
      route: '/api/export/summary/pdf',
      type: /^application\/pdf$/,
      file: /^attachment; filename="summary-\d{4}-\d{2}-\d{2}\.pdf"$/,
    },
  ])('$route answers its content type and an attachment file name', async ({ route, type, file }) => {
    const response = await download(t.baseUrl, route, admin.cookie);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(type);
    expect(response.headers['content-disposition']).toMatch(file);
  });

  it('exports 10,000 licenses as CSV that parses back to the same rows, formula cells escaped', async () => {
    const started = Date.now();
    const response = await download(t.baseUrl, '/api/export/licenses/csv', admin.cookie);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    const records = parse<Record<string, string>>(response.body!, { columns: true });
    expect(records).toHaveLength(10_000);
    const { rows } = await t.database.pool.query(
      `SELECT l.id, l.key, p.name AS product, c.name AS customer, c.email, l.license_type, l.active, l.ip_limit, l.used_ips,
              l.used_hwids, l.credits_total, l.credits_used, l.expires_at
         FROM licenses l JOIN products p ON p.id = l.product_id LEFT JOIN customers c ON c.id = l.customer_id ORDER BY l.key`,
    );
    const byKey = new Map(records.map((record) => [record.key, record]));
    expect(byKey.size).toBe(10_000);
    for (const row of rows) {
      const record = byKey.get(row.key)!;
      expect(record, row.key).toBeDefined();
      expect(record).toMatchObject({
        _id: row.id,
        product: escapeFormula(row.product),
        customer: row.customer ? escapeFormula(row.customer) : '',
        customerEmail: row.email ? escapeFormula(row.email) : '',
        licenseType: row.license_type,
        active: String(row.active),
        ipLimit: String(row.ip_limit),
        usedIps: escapeFormula(row.used_ips.join(' ')),
        usedHwids: escapeFormula(row.used_hwids.join(' ')),
        creditsTotal: String(row.credits_total),
        creditsUsed: String(row.credits_used),
        expiresAt: row.expires_at ? row.expires_at.toISOString() : '',
      });
    }
    // Formula cells of the fixtures, as a spreadsheet would read them: text, not formulas.
    const evil = records.find((record) => record.customerId === ids.evil)!;
    expect(evil.customer).toBe(`'${EVIL_NAME}`);
    expect(evil.customerEmail).toBe("'@evil.example");
    expect(records.find((record) => record.product?.includes('Other'))!.product).toBe("'+Other");
    expect(records.find((record) => record.usedHwids)!.usedHwids).toMatch(/^'@hw/);
    expect(response.body!.toString('utf8').split('\n')[0]).toMatch(/^"_id","key","productId","product",/);
    console.info(`CSV of 10,000 licenses: ${response.bytes} bytes in ${elapsed} ms`);
  });

  it('exports 10,000 licenses as a valid PDF whose text holds every key, with the table continued over pages', async () => {
    const started = Date.now();
    const response = await download(t.baseUrl, '/api/export/licenses/pdf', admin.cookie);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    const pdf = response.body!;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.subarray(-6).toString()).toMatch(/%%EOF\s*$/);
    const pageTexts = await pdfPages(pdf);
    const pages = pageTexts.length;
    expect(pages).toBeGreaterThan(100);
    const text = pageTexts.join('\n');
    const { rows } = await t.database.pool.query<{ key: string }>('SELECT key FROM licenses');
    const missing = rows.filter((row) => !text.includes(row.key));
    expect(missing).toEqual([]);
    expect(text).toContain('Filters: none');
    expect(text).toContain('10000 licenses');
    expect(text).toContain(`Page ${pages}`);
    // The header row is repeated on every page, once, and every page is numbered.
    expect(text.match(/Key\s+Product\s+Customer\s+Type\s+Status/g)?.length).toBe(pages);
    expect(
      pageTexts.filter(
        (page, index) =>
          /Key\s+Product\s+Customer\s+Type\s+Status/.test(page) && new RegExp(`\\bPage ${index + 1}\\b`).test(page),
      ),
    ).toHaveLength(pages);
    console.info(`PDF of 10,000 licenses: ${response.bytes} bytes, ${pages} pages in ${elapsed} ms`);
  }, 120_000);

  it.each([
    {
      name: 'product',
      query: () => `product=${ids.other}`,
      where: () => `product_id = '${ids.other}'`,
      check: (r: Record<string, string>) => r.productId === ids.other,
    },
    {
      name: 'customer',
      query: () => `customer=${ids.evil}`,
      where: () => `customer_id = '${ids.evil}'`,
      check: (r: Record<string, string>) => r.customerId === ids.evil,
    },
    {
      name: 'active=false',
      query: () => 'active=false',
      where: () => 'NOT active',
      check: (r: Record<string, string>) => r.active === 'false',
    },
    {
      name: 'licenseType=trial',
      query: () => 'licenseType=trial',
      where: () => `license_type = 'trial'`,
      check: (r: Record<string, string>) => r.licenseType === 'trial',
    },
    {
      name: 'all four together',
      query: () => `product=${ids.main}&customer=${ids.evil}&active=true&licenseType=enterprise`,
      where: () =>
        `product_id = '${ids.main}' AND customer_id = '${ids.evil}' AND active AND license_type = 'enterprise'`,
      check: (r: Record<string, string>) =>
        r.productId === ids.main && r.customerId === ids.evil && r.active === 'true' && r.licenseType === 'enterprise',
    },
  ])('applies the $name filter to the license CSV', async ({ query, where, check }) => {
    const expected = await t.database.pool.query<{ key: string }>(
      `SELECT key FROM licenses WHERE ${where()} ORDER BY key`,
    );
    expect(expected.rows.length).toBeGreaterThan(5);
    expect(expected.rows.length).toBeLessThan(10_000);
    const response = await download(t.baseUrl, `/api/export/licenses/csv?${query()}`, admin.cookie);
    expect(response.status).toBe(200);
    const records = parse<Record<string, string>>(response.body!, { columns: true });
    expect(records.every(check)).toBe(true);
    expect(records.map((r) => r.key).sort()).toEqual(expected.rows.map((row) => row.key).sort());
  });

  it('prints the filters used in the license PDF and only the matching licenses', async () => {
    const response = await download(
      t.baseUrl,
      `/api/export/licenses/pdf?product=${ids.other}&licenseType=trial`,
      admin.cookie,
    );
    const text = await pdfToText(response.body!);
    expect(text).toContain(`Filters: product=${ids.other}, licenseType=trial`);
    expect(text).toContain('10 licenses');
    expect(text).not.toContain('EXP-');
    expect(text).toContain('Page 1');
  });

  it('keeps the longest keys whole in the PDF, prints kanji and Hangul with the fallback fonts and shows characters no PDF font has (Linear B) as ?', async () => {
    const q = (sql: string, params: unknown[] = []) => t.database.pool.query(sql, params);
    const product = (
      await q(`INSERT INTO products (name, license_prefix) VALUES ('Wide', 'WWWWWWWWWWWWWWWWWWWW') RETURNING id`)
    ).rows[0].id;
    const customer = (
      await q(`INSERT INTO customers (name, email) VALUES ('Ünïcødé 日本 한국 𐀀', 'u@example.com') RETURNING id`)
    ).rows[0].id;
    const key = `WWWWWWWWWWWWWWWWWWWW-${'W'.repeat(24)}`;
    await q('INSERT INTO licenses (key, product_id, customer_id) VALUES ($1, $2, $3)', [key, product, customer]);
    const text = await pdfToText(
      (await download(t.baseUrl, `/api/export/licenses/pdf?product=${product}`, admin.cookie)).body!,
    );
    expect(text).toContain(key);
    expect(text).toContain('Ünïcødé 日本 한국 ?');
    // A CJK name too long for its cell is cut with the CJK font's widths: a few characters and '…'.
    const long = (
      await q(`INSERT INTO customers (name, email) VALUES ($1, 'l@example.com') RETURNING id`, ['王'.repeat(80)])
    ).rows[0].id;
    await q('INSERT INTO licenses (key, product_id, customer_id) VALUES ($1, $2, $3)', [`${key}-2`, product, long]);
    const clipped = (
      await pdfToText((await download(t.baseUrl, `/api/export/licenses/pdf?customer=${long}`, admin.cookie)).body!)
    ).match(/(王+)…/);
    expect(clipped?.[1]?.length).toBeGreaterThan(3);
    expect(clipped?.[1]?.length).toBeLessThan(40);
    await q('DELETE FROM licenses WHERE customer_id = $1', [long]);
    await q('DELETE FROM customers WHERE id = $1', [long]);
    await q('DELETE FROM licenses WHERE product_id = $1', [product]);
    await q('DELETE FROM products WHERE id = $1', [product]);
    await q('DELETE FROM customers WHERE id = $1', [customer]);
  });

  it('answers a CSV with only the header row when nothing matches', async () => {
    const { rows } = await t.database.pool.query(
      `INSERT INTO customers (name, email) VALUES ('Nobody', 'n@example.com') RETURNING id`,
    );
    const response = await download(t.baseUrl, `/api/export/licenses/csv?customer=${rows[0].id}`, admin.cookie);
    expect(response.status).toBe(200);
    expect(response.body!.toString()).toMatch(/^"_id","key",.*"createdAt"\n$/);
  });

  it.each([
    ['/api/export/licenses/csv?licenseType=perpetual', 'licenseType'],
    ['/api/export/licenses/pdf?active=maybe', 'active'],
    ['/api/export/licenses/csv?product=not-an-id', 'product'],
    ['/api/export/transactions/csv?status=paid', 'status'],
    ['/api/export/transactions/csv?startDate=yesterday', 'startDate'],
    ['/api/export/transactions/csv?startDate=2026-02-01&endDate=2026-01-01', 'endDate'],
  ])('%s answers 400 Validation failed naming %s', async (route, field) => {
    const response = await request(t.baseUrl).get(route).set('Cookie', admin.cookie);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: 'Validation failed' });
    expect(Object.keys(response.body.details)).toContain(field);
    expect(response.headers['content-disposition']).toBeUndefined();
  });

  it('exports transactions with the customer, status and date filters', async () => {
    const all = parse<Record<string, string>>(
      (await download(t.baseUrl, '/api/export/transactions/csv', admin.cookie)).body!,
      { columns: true },
    );
    expect(all).toHaveLength(60);
    expect(all.map((r) => r.createdAt)).toEqual([...all.map((r) => r.createdAt)].sort());
    expect(all[0]).toMatchObject({
      externalId: "'-2+3",
      amount: '1.5',
      currency: 'usd',
      status: 'processing',
      product: 'Export Pro',
    });
    const filtered = parse<Record<string, string>>(
      (
        await download(
          t.baseUrl,
          `/api/export/transactions/csv?customer=${ids.evil}&status=completed&startDate=2026-01-10T00:00:00Z&endDate=2026-02-28T00:00:00Z`,
          admin.cookie,
        )
      ).body!,
      { columns: true },
    );
    // Completed is g % 6 = 2, always an even g (the evil customer); the dates are 2026-01-01 + g days, so g in 9..58.
    expect(filtered.map((r) => Number(r.amount))).toEqual([14, 20, 26, 32, 38, 44, 50, 56].map((g) => g * 1.5));
    expect(
      filtered.every((r) => r.customerId === ids.evil && r.status === 'completed' && r.customer === `'${EVIL_NAME}`),
    ).toBe(true);
    // A date-only end date includes that whole day.
    const late = await t.database.pool.query(
      `INSERT INTO transactions (customer_id, amount, status, created_at) VALUES ($1, 5, 'refunded', '2026-03-10T18:00:00Z') RETURNING id`,
      [ids.plain],
    );
    const byDay = parse<Record<string, string>>(
      (await download(t.baseUrl, '/api/export/transactions/csv?startDate=2026-03-10&endDate=2026-03-10', admin.cookie))
        .body!,
      { columns: true },
    );
    await t.database.pool.query('DELETE FROM transactions WHERE id = $1', [late.rows[0].id]);
    expect(byDay.map((r) => r.createdAt)).toEqual(['2026-03-10T18:00:00.000Z']);
  });

  it('makes a summary PDF of the general statistics', async () => {
    await t.database.pool.query(
      `INSERT INTO usage_records (license_id, ip, status, created_at)
       SELECT (SELECT id FROM licenses ORDER BY key LIMIT 1), '10.0.0.1', s, now() - d * interval '1 day'
         FROM unnest(ARRAY['success','success','success','blocked','invalid'], ARRAY[1, 2, 40, 3, 4]) AS u(s, d)`,
    );
    const response = await download(t.baseUrl, '/api/export/summary/pdf', admin.cookie);
    expect(response.status).toBe(200);
    const text = await pdfToText(response.body!);
    expect(text).toContain('License service summary');
    expect(text).toMatch(/Licenses\s+Total: 10000/);
    expect(text).toMatch(/trial: 2508/);
    expect(text).toMatch(/Products: 2/);
    expect(text).toMatch(/Customers: \d+/);
    expect(text).toMatch(/Validations\s+Total: 5\s+Successful: 3\s+Blocked: 1\s+Invalid: 1\s+Last 30 days: 4/);
    expect(text).toMatch(/Transactions\s+Total: 60/);
    expect(text).toMatch(/Export Pro\s+EXP\s+9990/);
  });

  it('records an export entry in the audit log for each export', async () => {
    const response = await request(t.baseUrl).get('/api/audit?action=export&limit=1000').set('Cookie', admin.cookie);
    expect(response.status).toBe(200);
    const entries = response.body.auditLogs as {
      resourceType: string;
      userId: string;
      success: boolean;
      changes: { after: { format: string; rows: number } };
    }[];
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.every((entry) => entry.userId === 'admin-1' && entry.success)).toBe(true);
    expect(
      entries.some(
        (entry) =>
          entry.resourceType === 'license' &&
          entry.changes.after.format === 'csv' &&
          entry.changes.after.rows === 10_000,
      ),
    ).toBe(true);
    expect(entries.some((entry) => entry.resourceType === 'transaction')).toBe(true);
    expect(entries.some((entry) => entry.resourceType === 'system' && entry.changes.after.format === 'pdf')).toBe(true);
  });
});

describe('escapeFormula', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['＝1+1', "'＝1+1"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
    ['', ''],
    ['1-2', '1-2'],
  ])('%j becomes %j', (input, output) => {
    expect(escapeFormula(input)).toBe(output);
  });
});
