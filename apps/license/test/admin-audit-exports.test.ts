import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { recordAudit, type AuditEntry } from '../src/audit/audit.service.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

const HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(1)>';

/** The entry ids a list page shows, in order. */
const rowsOf = (html: string) =>
  [...documentOf(html).querySelectorAll('tr[data-audit]')].map((row) => row.getAttribute('data-audit'));

/** The text of a PDF, read by PDF.js through unpdf (pure JavaScript: nothing installed beside Node). */
async function pdfText(pdf: Buffer): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  try {
    return (await extractText(document, { mergePages: true })).text;
  } finally {
    await document.destroy();
  }
}

describe(`the admin console's audit log and exports pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session: Session | null = admin, status = 200) => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status, `${path} answered ${res.status}`).toBe(status);
    return res;
  };
  const pool = () => t.database.pool;
  /** Records an entry as `userId` and returns its id; `at` backdates it. */
  const seed = async (entry: AuditEntry, options: { userId?: string; ip?: string; at?: Date } = {}) => {
    await recordAudit(
      pool(),
      { userId: options.userId ?? 'seed-admin', ip: options.ip ?? '203.0.113.7', userAgent: 'vitest' },
      entry,
    );
    const { rows } = await pool().query<{ id: string }>(
      'SELECT id FROM audit_logs ORDER BY created_at DESC, id DESC LIMIT 1',
    );
    const id = rows[0]!.id;
    if (options.at) await pool().query('UPDATE audit_logs SET created_at = $2 WHERE id = $1', [id, options.at]);
    return id;
  };
  const clearLog = () => pool().query('DELETE FROM audit_logs');

  describe('the audit log', () => {
    it('sends visitors to sign in and refuses signed-in people who are not admins', async () => {
      const id = await seed({
        action: 'create',
        resourceType: 'product',
        resourceId: null,
        after: { name: 'Secret product' },
      });
      for (const path of ['/audit-log', `/audit-log/${id}`]) {
        expect(String((await get(path, null, 303)).headers.location)).toBe(`/?returnTo=${encodeURIComponent(path)}`);
      }
      const { session } = await t.customer({ name: 'Not An Admin' });
      for (const path of ['/audit-log', `/audit-log/${id}`]) {
        // A customer goes to their portal (customer-console-addresses.test.ts).
        const res = await get(path, session, 303);
        expect(res.headers.location).toBe('/');
        expect(res.text).not.toContain('Secret product');
      }
    });

    it('shows an empty state with labelled filters, and one for filters that match nothing', async () => {
      await clearLog();
      const res = await get('/audit-log');
      expect(res.headers['cache-control']).toBe('no-store');
      const document = documentOf(res.text);
      expect(textOf(res.text)).toContain('No audit entries yet.');
      expect(document.querySelector('nav.admin-nav a[aria-current="page"]')?.getAttribute('href')).toBe('/audit-log');
      const form = document.querySelector('form[action="/audit-log"][method="get"]')!;
      const fields = [...form.querySelectorAll('input, select')];
      expect(fields.map((field) => field.getAttribute('name'))).toEqual([
        'action',
        'type',
        'admin',
        'from',
        'to',
        'success',
      ]);
      expect(fields.map((field) => field.closest('label')?.querySelector('.label')?.textContent)).toEqual([
        'Action',
        'Resource type',
        'Admin (user id)',
        'From',
        'To',
        'Succeeded',
      ]);
      expect(form.querySelectorAll('input[type="date"]')).toHaveLength(2);

      await seed({ action: 'create', resourceType: 'product' });
      const none = await get('/audit-log?action=revoke');
      expect(textOf(none.text)).toContain('No audit entries match these filters.');
      expect(documentOf(none.text).querySelector('select[name="action"] option[selected]')?.getAttribute('value')).toBe(
        'revoke',
      );
    });

    it('narrows the list by action, resource type, admin, date range and success, newest first', async () => {
      await clearLog();
      const old = await seed(
        { action: 'update', resourceType: 'customer', resourceId: null },
        { at: new Date('2026-01-15T12:00:00Z') },
      );
      const revoke = await seed(
        { action: 'revoke', resourceType: 'license', resourceId: null },
        { at: new Date('2026-03-01T08:00:00Z') },
      );
      const failed = await seed(
        {
          action: 'create',
          resourceType: 'product',
          success: false,
          after: { status: 400, error: 'Validation failed' },
        },
        { at: new Date('2026-03-02T08:00:00Z') },
      );
      const other = await seed(
        { action: 'update', resourceType: 'license' },
        { userId: 'other-admin', at: new Date('2026-03-03T08:00:00Z') },
      );

      expect(rowsOf((await get('/audit-log')).text)).toEqual([other, failed, revoke, old]);
      expect(rowsOf((await get('/audit-log?action=revoke')).text)).toEqual([revoke]);
      expect(rowsOf((await get('/audit-log?action=update')).text)).toEqual([other, old]);
      expect(rowsOf((await get('/audit-log?type=license')).text)).toEqual([other, revoke]);
      expect(rowsOf((await get('/audit-log?admin=other-admin')).text)).toEqual([other]);
      expect(rowsOf((await get('/audit-log?success=no')).text)).toEqual([failed]);
      expect(rowsOf((await get('/audit-log?success=yes')).text)).toEqual([other, revoke, old]);
      // Both days of the range are included, whole.
      expect(rowsOf((await get('/audit-log?from=2026-03-01&to=2026-03-02')).text)).toEqual([failed, revoke]);
      expect(rowsOf((await get('/audit-log?to=2026-01-15')).text)).toEqual([old]);
      expect(
        rowsOf((await get('/audit-log?type=license&action=update&admin=other-admin&from=2026-03-03&success=yes')).text),
      ).toEqual([other]);
      const filtered = await get('/audit-log?type=license');
      expect(textOf(filtered.text)).toContain('2 entries match the filters');
      // What cannot be read is ignored rather than failing the page.
      expect(rowsOf((await get('/audit-log?action=explode&from=yesterday&success=maybe&page=-3')).text)).toEqual([
        other,
        failed,
        revoke,
        old,
      ]);
    });

    it('pages through the log 25 at a time, the filters kept in the page links', async () => {
      await clearLog();
      const ids: string[] = [];
      for (let n = 0; n < 30; n += 1)
        ids.push(await seed({ action: 'view', resourceType: 'system' }, { at: new Date(Date.UTC(2026, 4, 1, 0, n)) }));
      const newestFirst = [...ids].reverse();
      const first = await get('/audit-log?action=view');
      expect(rowsOf(first.text)).toEqual(newestFirst.slice(0, 25));
      expect(textOf(first.text)).toContain('30 entries match the filters');
      const next = documentOf(first.text).querySelector('a[rel="next"]')?.getAttribute('href');
      expect(next).toBe('/audit-log?action=view&page=2');
      expect(rowsOf((await get(next!)).text)).toEqual(newestFirst.slice(25));
    });

    it('opens an entry with every field, its resource linked, and its changes as escaped, readable JSON', async () => {
      const license = await t.createLicense();
      const id = await seed(
        {
          action: 'update',
          resourceType: 'license',
          resourceId: license._id,
          before: { notes: HOSTILE, limits: { ip: 1 } },
          after: { notes: 'safe', limits: { ip: 2 } },
        },
        { userId: 'admin-<b>', ip: '198.51.100.23' },
      );
      const list = await get('/audit-log');
      const link = documentOf(list.text).querySelector(`tr[data-audit="${id}"] a`)?.getAttribute('href');
      expect(link).toBe(`/audit-log/${id}`);

      const res = await get(link!);
      expect(res.text).not.toContain('<script>alert(1)');
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).not.toContain('admin-<b>');
      const document = documentOf(res.text);
      const facts = Object.fromEntries(
        [...document.querySelectorAll('.fact')].map((fact) => [
          fact.querySelector('dt')!.textContent,
          fact.querySelector('dd')!.textContent.trim(),
        ]),
      );
      expect(facts).toMatchObject({
        Who: 'admin-<b>',
        'IP address': '198.51.100.23',
        Action: 'update',
        'Resource type': 'license',
        Resource: license._id,
        Result: 'Succeeded',
        'Browser or program': 'vitest',
      });
      expect(facts.When).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
      expect(document.querySelector('.fact dd a')?.getAttribute('href')).toBe(`/licenses/${license._id}`);
      const before = document.querySelector('pre[data-json="before"]')!.textContent;
      expect(JSON.parse(before)).toEqual({ notes: HOSTILE, limits: { ip: 1 } });
      expect(before).toContain('\n  "limits": {\n    "ip": 1\n  }');
      expect(JSON.parse(document.querySelector('pre[data-json="after"]')!.textContent)).toEqual({
        notes: 'safe',
        limits: { ip: 2 },
      });
    });

    it("shows a failed entry's error, and says when nothing was recorded", async () => {
      const id = await seed({
        action: 'delete',
        resourceType: 'product',
        resourceId: 'not-a-uuid',
        success: false,
        after: { status: 409, error: 'Product has licenses' },
      });
      const document = documentOf((await get(`/audit-log/${id}`)).text);
      expect(document.querySelector('[data-field="error"]')?.textContent).toBe('Product has licenses');
      expect(document.querySelector('h1')?.textContent).toContain('failed');
      expect(document.querySelector('.fact dd a')).toBeNull();
      expect(document.querySelector('[data-json="before"]')?.textContent).toBe('Nothing recorded.');
    });

    it('answers the not-found page for an unknown entry', async () => {
      for (const path of ['/audit-log/7d1e3c1a-0000-4000-8000-000000000000', '/audit-log/not-an-id']) {
        const res = await get(path, admin, 404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(textOf(res.text)).toContain('Page not found');
      }
    });

    it('has an index for each filter, used for a page of the filtered log newest first', async () => {
      const client = await pool().connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_seqscan = off');
        const plan = async (where: string) =>
          (
            await client.query<{ 'QUERY PLAN': string }>(
              `EXPLAIN SELECT * FROM audit_logs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 25`,
            )
          ).rows
            .map((row) => row['QUERY PLAN'])
            .join('\n');
        expect(await plan(`action = 'revoke'`)).toContain('audit_logs_action_created_idx');
        expect(await plan(`resource_type = 'license'`)).toContain('audit_logs_type_created_idx');
        expect(await plan('NOT success')).toContain('audit_logs_failed_created_idx');
        expect(await plan(`user_id = 'admin'`)).toContain('audit_logs_user_idx');
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    });
  });

  describe('the exports page', () => {
    it('is for admins only', async () => {
      expect(String((await get('/exports', null, 303)).headers.location)).toBe('/?returnTo=%2Fexports');
      const { session } = await t.customer();
      expect(String((await get('/exports', session, 303)).headers.location)).toBe('/');
    });

    it("lists the four exports, each a GET form of the specification's filters aimed at its export route", async () => {
      const product = await t.createProduct({ name: 'Exported product' });
      await t.createCustomer({ name: 'Exported customer', email: 'exported@example.com' });
      const document = documentOf((await get('/exports')).text);
      expect(document.querySelector('nav.admin-nav a[aria-current="page"]')?.getAttribute('href')).toBe('/exports');
      const forms = [...document.querySelectorAll('form.export-form')].map((form) => ({
        action: form.getAttribute('action'),
        method: form.getAttribute('method'),
        fields: [...form.querySelectorAll('input, select')].map(
          (field) => `${field.getAttribute('name')}:${field.getAttribute('type') ?? field.tagName.toLowerCase()}`,
        ),
        labelled: [...form.querySelectorAll('input, select')].every((field) =>
          Boolean(field.closest('label')?.querySelector('.label')?.textContent),
        ),
        button: form.querySelector('button[type="submit"]')?.textContent,
      }));
      const licenseFields = ['product:select', 'customer:select', 'active:select', 'licenseType:select'];
      expect(forms).toEqual([
        {
          action: '/api/export/licenses/csv',
          method: 'get',
          fields: licenseFields,
          labelled: true,
          button: 'Download licenses CSV',
        },
        {
          action: '/api/export/licenses/pdf',
          method: 'get',
          fields: licenseFields,
          labelled: true,
          button: 'Download licenses PDF',
        },
        {
          action: '/api/export/transactions/csv',
          method: 'get',
          fields: ['customer:select', 'status:select', 'startDate:date', 'endDate:date'],
          labelled: true,
          button: 'Download transactions CSV',
        },
        {
          action: '/api/export/summary/pdf',
          method: 'get',
          fields: [],
          labelled: true,
          button: 'Download summary PDF',
        },
      ]);
      const productOptions = [...document.querySelectorAll('#licenses-csv select[name="product"] option')].map(
        (option) => option.getAttribute('value'),
      );
      expect(productOptions).toContain(product._id);
      expect(document.querySelector('#licenses-csv select[name="customer"]')?.textContent).toContain(
        'Exported customer (exported@example.com)',
      );
      expect(
        [...document.querySelectorAll('#licenses-pdf select[name="licenseType"] option')].map((option) =>
          option.getAttribute('value'),
        ),
      ).toEqual(['', 'fixed', 'trial', 'consumption', 'enterprise']);
      expect(
        [...document.querySelectorAll('#transactions-csv select[name="status"] option')].map((option) =>
          option.getAttribute('value'),
        ),
      ).toEqual(['', 'pending', 'processing', 'completed', 'failed', 'refunded', 'cancelled']);
    });

    it('downloads each export with the session cookie as the forms send it, empty filters meaning "all"', async () => {
      const product = await t.createProduct({ name: 'Form filter product' });
      const license = await t.createLicense({ product: product._id, licenseType: 'trial' });
      const other = await t.createLicense({ licenseType: 'fixed' });
      const csv = await get(`/api/export/licenses/csv?product=${product._id}&customer=&active=&licenseType=`);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="licenses-\d{4}-\d{2}-\d{2}\.csv"$/);
      expect(csv.text).toContain(license.key);
      expect(csv.text).not.toContain(other.key);
      const all = await get('/api/export/licenses/csv?product=&customer=&active=&licenseType=');
      expect(all.text).toContain(other.key);
      const transactions = await get('/api/export/transactions/csv?customer=&status=&startDate=2026-01-01&endDate=');
      expect(transactions.headers['content-disposition']).toMatch(/filename="transactions-\d{4}-\d{2}-\d{2}\.csv"/);
      for (const path of [
        '/api/export/licenses/pdf?product=&customer=&active=true&licenseType=trial',
        '/api/export/summary/pdf',
      ]) {
        const res = await t.http
          .get(path)
          .set('Cookie', admin.cookie)
          .buffer(true)
          .parse((response, done) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => done(null, Buffer.concat(chunks)));
          });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/pdf');
        expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
      }
      // Still checked: a value that is not empty must be valid.
      const bad = await get('/api/export/licenses/csv?product=nope', admin, 400);
      expect(bad.body.details).toHaveProperty('product');
    });

    it('prints names in any script the embedded fonts cover in the licenses PDF (extracted text, no ?)', async () => {
      const product = await t.createProduct({ name: 'Ünïcode Prødukt', licensePrefix: 'UNI' });
      // Chinese and Japanese (kanji, kana) come from the fallback font Noto Sans SC, Korean (Hangul) from Noto Sans KR.
      const names = [
        'Zoë Ångström',
        'Дмитрий Иванов',
        'Ελένη Παπαδοπούλου',
        'محمد',
        'שרה כהן',
        'François Ødegård',
        '王小明',
        '山田太郎',
        'さくら',
        'Müller 王',
        '김민준',
      ];
      for (const name of names) {
        const customer = await t.createCustomer({ name });
        await t.createLicense({ product: product._id, customer: customer._id });
      }
      const res = await t.http
        .get(`/api/export/licenses/pdf?product=${product._id}`)
        .set('Cookie', admin.cookie)
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      const pdf = res.body as Buffer;
      // The font is embedded (a subset of DejaVu Sans Condensed), not one of the 14 standard ones.
      expect(pdf.toString('latin1')).toMatch(/\/FontFile2/);
      expect(pdf.toString('latin1')).toMatch(/DejaVuSansCondensed/);
      expect(pdf.toString('latin1')).toMatch(/NotoSansSC-Regular/);
      expect(pdf.toString('latin1')).toMatch(/NotoSansKR-Regular/);
      // Every font is subset: the 6–10 MB fallback faces add only the glyphs used.
      expect(pdf.length).toBeLessThan(1_000_000);
      console.info(`PDF of ${names.length} licenses with CJK names: ${pdf.length} bytes`);
      const text = await pdfText(pdf);
      expect(text).toContain('Ünïcode Prødukt');
      for (const name of names.filter((name) => !/[\u0590-\u06FF]/.test(name))) expect(text).toContain(name);
      // Right-to-left names are set as one right-to-left run; PDF.js reorders what it reads back,
      // so a name of two words is checked word by word.
      for (const word of ['محمد', 'שרה', 'כהן']) expect(text).toContain(word);
      expect(text).not.toMatch(/\?/);
    });
  });
});
