import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { barChartSvg, niceCeiling } from '@app/ui';
import { expiryText } from '../src/customer-portal/customer-portal.page-data.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

const day = 86_400_000;
const SCRIPT = '<script>alert(1)</script>';
const ATTRIBUTE = '"><img src=x onerror=alert(1)>';
const HOSTILE = `${SCRIPT} ${ATTRIBUTE}`;

/** The visible text of a page, spaces collapsed. */
const utcDate = (offsetDays: number) => new Date(Date.now() + offsetDays * day).toISOString().slice(0, 10);

describe(`the customer portal pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session?: Session, status = 200) => {
    const request = t.http.get(path);
    if (session) request.set('Cookie', session.cookie);
    const res = await request;
    expect(res.status, `${path} answered ${res.status}`).toBe(status);
    if (status !== 302) expect(res.headers['content-type']).toMatch(/^text\/html/);
    return res.text;
  };

  /** Usage records as validation writes them, at chosen times (validation itself stamps "now"). */
  async function addRecords(
    licenseId: string,
    records: Array<{
      at: Date;
      status?: 'success' | 'blocked' | 'invalid';
      ip?: string;
      hwid?: string;
      reason?: string;
    }>,
  ) {
    for (const record of records) {
      await t.database.pool.query(
        'INSERT INTO usage_records (license_id, ip, hwid, status, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          licenseId,
          record.ip ?? null,
          record.hwid ?? null,
          record.status ?? 'success',
          record.reason ?? null,
          record.at,
        ],
      );
    }
  }

  it("lists a customer's licenses with type, state, expiry in words, credits, a copy button and a link to each", async () => {
    const { customer, session } = await t.customer({ name: 'Carol' });
    const studio = await t.createProduct({ name: 'Studio Pro' });
    const soon = await t.createLicense({
      product: studio._id,
      customer: customer._id,
      expiresAt: new Date(Date.now() + 10.5 * day),
    });
    const lapsed = await t.createLicense({
      product: studio._id,
      customer: customer._id,
      expiresAt: new Date(Date.now() - 3.5 * day),
    });
    const forever = await t.createLicense({ product: studio._id, customer: customer._id, licenseType: 'enterprise' });
    const metered = await t.createLicense({ customer: customer._id, licenseType: 'consumption', credits: 10 });
    const tomorrow = await t.createLicense({
      product: studio._id,
      customer: customer._id,
      expiresAt: new Date(Date.now() + 1.5 * day),
    });
    const other = await t.createLicense({ customer: (await t.createCustomer())._id });
    await t.http.post('/api/license/validate').send({ key: metered.key, hwid: 'box-1' }).expect(200);

    const html = await get('/', session);
    const document = documentOf(html);
    expect(document.querySelector('h1')?.textContent).toBe('Your licenses');
    const rows = new Map(
      [...document.querySelectorAll('tr[data-license]')].map((row) => [row.getAttribute('data-license'), row]),
    );
    expect([...rows.keys()].sort()).toEqual(
      [soon, lapsed, forever, metered, tomorrow].map((license) => license._id).sort(),
    );
    expect(html).not.toContain(other.key);

    const cell = (license: { _id: string }, label: string) =>
      rows.get(license._id)!.querySelector(`td[data-label="${label}"]`)?.textContent?.replace(/\s+/g, ' ').trim();
    expect(cell(soon, 'Product')).toBe('Studio Pro');
    expect(cell(soon, 'Type')).toBe('fixed');
    expect(cell(soon, 'State')).toBe('active');
    expect(cell(soon, 'Expires')).toBe(`${soon.expiresAt!.slice(0, 10)} expires in 10 days`);
    expect(cell(tomorrow, 'Expires')).toBe(`${tomorrow.expiresAt!.slice(0, 10)} expires in 1 day`);
    expect(cell(lapsed, 'State')).toBe('expired');
    expect(cell(lapsed, 'Expires')).toBe(`${lapsed.expiresAt!.slice(0, 10)} expired 3 days ago`);
    expect(cell(forever, 'Expires')).toBe('never');
    expect(cell(forever, 'Credits')).toBe('—');
    expect(cell(metered, 'Type')).toBe('consumption');
    expect(cell(metered, 'Credits')).toBe('9 left of 10');
    expect(cell(metered, 'In use')).toBe('IPs 1 / ∞ Devices 1 / ∞');

    for (const license of [soon, metered]) {
      const row = rows.get(license._id)!;
      expect(row.querySelector('button[data-copy]')?.getAttribute('data-copy')).toBe(license.key);
      expect(row.querySelector('button[data-copy]')?.textContent).toBe('Copy key');
      expect(row.querySelector('a.button')?.getAttribute('href')).toBe(`/my-licenses/${license._id}`);
    }
    // The copy button's script is a file (no inline script under the Content-Security-Policy).
    expect(
      [...document.querySelectorAll('script:not([type="application/json"])')].map((script) =>
        script.getAttribute('src'),
      ),
    ).toEqual(['/static/ui/ui.js', '/dashboard-assets/dashboard.js']);
  });

  it('shows a customer without licenses a friendly empty page, and a user who is neither admin nor customer whom to ask', async () => {
    const { session } = await t.customer({ name: 'Newcomer' });
    const empty = textOf(await get('/', session));
    expect(empty).toContain('Your licenses');
    expect(empty).toContain('You have no licenses yet.');
    expect(empty).toContain('When your vendor issues a license to your account, it appears here');

    const stranger = textOf(await get('/', await t.signIn('someone-unlinked')));
    expect(stranger).toContain('this account has no access');
    expect(stranger).toContain("Ask your vendor's administrator to link your account");
  });

  it('shows one license: its fields, the chart of validations per day, the records, IPs and hardware ids with first and last seen', async () => {
    const { customer, session } = await t.customer();
    const product = await t.createProduct({ name: 'Render Farm', description: 'Cloud rendering credits' });
    const license = await t.createLicense({
      product: product._id,
      customer: customer._id,
      licenseType: 'consumption',
      credits: 50,
      ipLimit: 3,
      hwidLimit: 2,
    });
    await t.http
      .post('/api/license/validate')
      .send({ key: license.key, ip: '203.0.113.7', hwid: 'render-node-7' })
      .expect(200);
    await addRecords(license._id, [
      { at: new Date(Date.now() - 2 * day), ip: '203.0.113.7', hwid: 'render-node-7' },
      {
        at: new Date(Date.now() - 2 * day),
        status: 'blocked',
        ip: '198.51.100.1',
        hwid: 'stranger-box',
        reason: 'Hardware limit reached',
      },
      { at: new Date(Date.now() - 5 * day), ip: '203.0.113.7', hwid: 'render-node-7' },
      { at: new Date(Date.now() - 40 * day), ip: '203.0.113.7', hwid: 'render-node-7' },
    ]);

    const html = await get(`/my-licenses/${license._id}`, session);
    const document = documentOf(html);
    const text = textOf(html);
    expect(document.querySelector('h1')?.textContent).toContain('Render Farm');
    expect(text).toContain('Cloud rendering credits');
    expect(document.querySelector('.facts code.key')?.textContent).toBe(license.key);
    expect(document.querySelector('.facts button[data-copy]')?.getAttribute('data-copy')).toBe(license.key);
    const fact = (label: string) =>
      [...document.querySelectorAll('.fact')]
        .find((item) => item.querySelector('dt')?.textContent === label)
        ?.querySelector('dd')
        ?.textContent?.replace(/\s+/g, ' ')
        .trim();
    expect(fact('Type')).toBe('consumption');
    expect(fact('State')).toBe('active');
    expect(fact('Expires')).toBe('never');
    expect(fact('IP addresses')).toBe('1 / 3');
    expect(fact('Devices (hardware ids)')).toBe('1 / 2');
    expect(fact('Credits left')).toBe('49 of 50');
    expect(fact('Last validated')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);

    // The chart: an accessible SVG, one column per day of the last 30, the totals of the range (the 40-day-old record is outside it).
    const svg = document.querySelector('svg.chart')!;
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.querySelector('title')?.textContent).toBe('Validations per day, last 30 days');
    expect(svg.querySelector('desc')?.textContent).toContain('3 successful validations and 1 failed validation');
    expect(svg.querySelectorAll('g.chart-bar')).toHaveLength(30);
    expect(svg.querySelector('g.chart-bar:last-of-type title')?.textContent).toBe(
      `${utcDate(0)}: 1 successful, 0 failed`,
    );
    expect(document.querySelector('[data-total="success"]')?.textContent).toBe('3');
    expect(document.querySelector('[data-total="failure"]')?.textContent).toBe('1');
    expect(
      [...document.querySelectorAll('.segmented a')].map((link) => [
        link.textContent,
        link.getAttribute('href'),
        link.hasAttribute('aria-current'),
      ]),
    ).toEqual([
      ['7 days', `/my-licenses/${license._id}?days=7#usage`, false],
      ['30 days', `/my-licenses/${license._id}#usage`, true],
      ['90 days', `/my-licenses/${license._id}?days=90#usage`, false],
    ]);

    // The records, newest first, all of them (the filter is empty).
    const records = [...document.querySelectorAll('table.records tbody tr')];
    expect(records).toHaveLength(5);
    expect(document.querySelector('[data-records-total]')?.textContent).toBe('5 records');
    const blocked = records.find((row) => row.textContent?.includes('stranger-box'))!;
    expect(blocked.querySelector('td[data-label="Result"]')?.textContent).toBe('Blocked');
    expect(blocked.querySelector('td[data-label="Reason"]')?.textContent).toBe('Hardware limit reached');

    // IPs and hardware ids in use, first seen 40 days ago (from the records), each with a release button.
    const device = (kind: string) => document.querySelector(`table.devices[data-kind="${kind}"] tbody tr`)!;
    expect(device('ip').querySelector('code')?.textContent).toBe('203.0.113.7');
    expect(device('ip').querySelector('td[data-label="First seen"]')?.textContent).toContain(utcDate(-40));
    expect(device('ip').querySelector('td[data-label="Last seen"]')?.textContent).toContain(utcDate(0));
    expect(device('hwid').querySelector('code')?.textContent).toBe('render-node-7');
    const release = device('hwid').querySelector('button[data-release-kind]')!;
    expect(release.getAttribute('data-release-kind')).toBe('hwid');
    expect(release.getAttribute('data-release-value')).toBe('render-node-7');
    expect(release.getAttribute('data-release-url')).toBe(`/api/customer/licenses/${license._id}/release`);
    // Only what the license holds now: the blocked stranger's IP and box are records, not devices.
    expect([...document.querySelectorAll('table.devices code')].map((code) => code.textContent)).toEqual([
      '203.0.113.7',
      'render-node-7',
    ]);

    // Credits: what is left, and one credit per successful validation per day.
    const history = [...document.querySelectorAll('#credits tbody tr')].map((row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.textContent).join(' '),
    );
    expect(history).toEqual([`${utcDate(0)} 1`, `${utcDate(-2)} 1`, `${utcDate(-5)} 1`]);
    expect(document.querySelector('a[href$="/file"]')?.getAttribute('href')).toBe(
      `/api/customer/licenses/${license._id}/file`,
    );
    expect(document.querySelector('a[href$="/file"]')?.textContent).toBe('Download license file');
  });

  it('draws 7, 30 or 90 days as the address asks, and 30 for anything else', async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id });
    await addRecords(license._id, [{ at: new Date(Date.now() - 60 * day) }]);
    const bars = async (query: string) => {
      const document = documentOf(await get(`/my-licenses/${license._id}${query}`, session));
      return {
        bars: document.querySelectorAll('svg.chart g.chart-bar').length,
        success: document.querySelector('[data-total="success"]')?.textContent,
      };
    };
    expect(await bars('?days=7')).toEqual({ bars: 7, success: '0' });
    expect(await bars('?days=90')).toEqual({ bars: 90, success: '1' });
    expect(await bars('?days=31')).toEqual({ bars: 30, success: '0' });
    expect(await bars('?days=abc&days=7')).toEqual({ bars: 30, success: '0' });
    // Not a credit license: no credits section, and no devices in use.
    const html = await get(`/my-licenses/${license._id}`, session);
    expect(documentOf(html).querySelector('#credits')).toBeNull();
    expect(textOf(html)).toContain('None in use.');
  });

  it('filters the records by date (both ends included) and pages through them, 25 a page', async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id });
    // 3 records a day for 20 days: day -1 ... day -20, box-0 the newest.
    const base = Date.now();
    await addRecords(
      license._id,
      Array.from({ length: 60 }, (_, index) => ({
        at: new Date(base - (Math.floor(index / 3) + 1) * day - index * 1000),
        hwid: `box-${index}`,
      })),
    );
    const page = async (query: string) => {
      const document = documentOf(await get(`/my-licenses/${license._id}${query}`, session));
      return {
        rows: [...document.querySelectorAll('table.records tbody tr')].map(
          (row) => row.querySelector('td[data-label="Hardware id"]')?.textContent,
        ),
        total: document.querySelector('[data-records-total]')?.textContent,
        current: document.querySelector('.pagination [aria-current="page"]')?.textContent,
        next: document.querySelector('.pagination a[rel="next"]')?.getAttribute('href'),
        from: document.querySelector<HTMLInputElement>('input[name="from"]')?.value,
        labels: [...document.querySelectorAll('form.filters label')].map((label) => label.textContent?.trim()),
      };
    };

    const first = await page('');
    expect(first.rows).toHaveLength(25);
    expect(first.total).toBe('60 records');
    expect(first.current).toBe('1');
    expect(first.next).toBe(`/my-licenses/${license._id}?page=2#records`);
    expect(first.labels).toEqual(['From (UTC)', 'To (UTC)']);
    expect((await page('?page=2')).rows).toHaveLength(25);
    const third = await page('?page=3');
    expect(third.rows).toHaveLength(10);
    expect(third.next).toBeUndefined();
    // A page past the end shows the last.
    expect((await page('?page=99')).current).toBe('3');

    // Days -2 to -5: 4 days of 3 records, the newest first.
    const filtered = await page(`?from=${utcDate(-5)}&to=${utcDate(-2)}`);
    expect(filtered.total).toBe('12 records in the chosen dates');
    expect(filtered.rows).toEqual(Array.from({ length: 12 }, (_, index) => `box-${index + 3}`));
    expect(filtered.from).toBe(utcDate(-5));
    expect(filtered.current).toBeUndefined();
    // Only a start: from day -10 to today; the pages keep the filter.
    const since = await page(`?from=${utcDate(-10)}&days=7`);
    expect(since.total).toBe('30 records in the chosen dates');
    expect(since.next).toBe(`/my-licenses/${license._id}?days=7&from=${utcDate(-10)}&page=2#records`);
    // Dates that do not exist are ignored rather than failing the page.
    expect((await page('?from=2026-02-30&to=yesterday')).total).toBe('60 records');
    expect(textOf(await get(`/my-licenses/${license._id}?from=${utcDate(1)}`, session))).toContain(
      'No records in these dates.',
    );
  });

  it("lists what a license grants as its Features: each entitlement's name beside its code, escaped", async () => {
    const admin = await t.admin();
    const post = async (path: string, body: object) => {
      const res = await t.http.post(path).set(admin.headers).send(body);
      expect(res.status, `${path} answered ${res.status}`).toBe(201);
      return res.body as Record<string, { _id: string }>;
    };
    const code = (name: string) => `${name}_${process.pid}_${Date.now()}`;
    const [sso, hostile] = [code('SSO'), code('RAW')];
    await post('/api/entitlements', { code: sso, name: 'Single sign-on' });
    await post('/api/entitlements', { code: hostile, name: HOSTILE });
    const product = await t.createProduct({ name: 'Studio' });
    const { policy } = await post('/api/policies', {
      name: 'Studio yearly',
      productId: product._id,
      entitlements: [sso],
    });
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ policyId: policy!._id, customer: customer._id, entitlements: [hostile] });

    const document = documentOf(await get(`/my-licenses/${license._id}`, session));
    const features = [...document.querySelectorAll('ul[aria-label="Features of this license"] li')];
    // Sorted by code, the policy's and the license's own together.
    expect(
      features.map((item) => [
        item.querySelector('.feature-name')?.textContent,
        item.querySelector('code')?.textContent,
      ]),
    ).toEqual([
      [HOSTILE, hostile],
      ['Single sign-on', sso],
    ]);
    expect(document.querySelector('#features img')).toBeNull();

    // A license that grants nothing says so.
    const plain = await t.createLicense({ customer: customer._id });
    const empty = documentOf(await get(`/my-licenses/${plain._id}`, session));
    expect(empty.querySelector('ul[aria-label="Features of this license"]')).toBeNull();
    expect(textOf(empty.querySelector('#features')!.outerHTML)).toContain('No features listed');
  });

  it("answers the 404 page for another customer's license, an unknown id and a malformed one; visitors go to sign in", async () => {
    const { session } = await t.customer();
    const other = await t.customer();
    const theirs = await t.createLicense({ customer: other.customer._id });
    for (const id of [theirs._id, '00000000-0000-4000-8000-000000000000', 'not-an-id', encodeURIComponent(SCRIPT)]) {
      const html = await get(`/my-licenses/${id}`, session, 404);
      expect(textOf(html)).toContain('Page not found');
      expect(html).not.toContain(theirs.key);
    }
    // Its owner sees it; an admin (not a customer) and a stranger get the 404 page; a visitor is sent to sign in.
    expect(await get(`/my-licenses/${theirs._id}`, other.session)).toContain(theirs.key);
    await get(`/my-licenses/${theirs._id}`, await t.admin(), 404);
    await get(`/my-licenses/${theirs._id}`, await t.signIn('nobody-linked'), 404);
    const visitor = await t.http.get(`/my-licenses/${theirs._id}`).expect(302);
    expect(visitor.headers.location).toBe(`/?returnTo=${encodeURIComponent(`/my-licenses/${theirs._id}`)}`);
  });

  it('escapes hostile product names, descriptions, keys, hardware ids and reasons', async () => {
    const { customer, session } = await t.customer({ name: HOSTILE });
    const product = await t.createProduct({ name: HOSTILE, description: HOSTILE, licensePrefix: ATTRIBUTE });
    const license = await t.createLicense({
      product: product._id,
      customer: customer._id,
      licenseType: 'consumption',
      credits: 5,
    });
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: HOSTILE }).expect(200);
    await addRecords(license._id, [{ at: new Date(), status: 'invalid', hwid: ATTRIBUTE, reason: HOSTILE }]);

    for (const path of [
      '/',
      `/my-licenses/${license._id}`,
      `/my-licenses/${license._id}?from=${encodeURIComponent(ATTRIBUTE)}&days=${encodeURIComponent(SCRIPT)}`,
    ]) {
      const html = await get(path, session);
      expect(html).not.toContain('<script>alert');
      expect(html).not.toMatch(/<img src=x/i);
      const document = documentOf(html);
      expect(
        [...document.querySelectorAll('script:not([type="application/json"])')].every((script) =>
          ['/static/ui/ui.js', '/dashboard-assets/dashboard.js'].includes(script.getAttribute('src') ?? ''),
        ),
      ).toBe(true);
      const attributes = [...document.querySelectorAll('*')].flatMap((element) => [...element.attributes]);
      expect(
        attributes.filter((attribute) => attribute.name.startsWith('on')).map((attribute) => attribute.name),
      ).toEqual([]);
      const text = textOf(html);
      expect(text).toContain(license.key);
      expect(text).toContain(HOSTILE);
      // The copy button carries the key itself, as the attribute's value.
      expect(
        [...document.querySelectorAll('button[data-copy]')].map((button) => button.getAttribute('data-copy')),
      ).toContain(license.key);
    }
    const detail = documentOf(await get(`/my-licenses/${license._id}`, session));
    expect(detail.querySelector('button[data-release-kind="hwid"]')?.getAttribute('data-release-value')).toBe(HOSTILE);
    expect(detail.querySelector('table.records td[data-label="Reason"]')?.textContent).toBe(HOSTILE);
  });

  it("says the service is unavailable in panic mode, on the list and on a license's page", async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id });
    await t.settings.update({ security: { panicMode: true } });
    try {
      for (const path of ['/', `/my-licenses/${license._id}`]) {
        const html = await get(path, session);
        expect(textOf(html)).toContain('The service is temporarily unavailable.');
        expect(html).not.toContain(license.key);
      }
    } finally {
      await t.settings.update({ security: { panicMode: false } });
    }
  });
});

describe('the pieces the pages are made of', () => {
  it('says when a license expires in whole days, rounding towards today', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    const at = (hours: number) => new Date(now.getTime() + hours * 3_600_000);
    expect(expiryText(null, now)).toBe('never');
    expect(expiryText(at(5), now)).toBe('expires today');
    expect(expiryText(at(24), now)).toBe('expires in 1 day');
    expect(expiryText(at(24 * 12 + 23), now)).toBe('expires in 12 days');
    expect(expiryText(at(0), now)).toBe('expired today');
    expect(expiryText(at(-30), now)).toBe('expired 1 day ago');
    expect(expiryText(at(-24 * 400), now)).toBe('expired 400 days ago');
  });

  it('draws a stacked bar chart whose scale ends on a whole count, with its texts escaped', () => {
    expect([0, 1, 3, 5, 10, 11, 30, 51, 999].map(niceCeiling)).toEqual([2, 2, 4, 6, 10, 20, 50, 100, 1000]);
    const svg = barChartSvg({
      id: 'x',
      title: SCRIPT,
      description: ATTRIBUTE,
      labels: ['2026-11-24', '2026-11-25'],
      series: [
        { name: 'ok', className: 'chart-success', values: [3, 0] },
        { name: 'failed', className: 'chart-failure', values: [1, 0] },
      ],
    });
    const svgElement = documentOf(`<body>${svg}</body>`).querySelector('svg')!;
    expect(svgElement.getAttribute('aria-labelledby')).toBe('x-title x-desc');
    expect(svgElement.querySelector('title')?.textContent).toBe(SCRIPT);
    expect(svgElement.querySelector('desc')?.textContent).toBe(ATTRIBUTE);
    expect(svg).not.toContain('<script>');
    expect([...svgElement.querySelectorAll('g.chart-bar > title')].map((title) => title.textContent)).toEqual([
      '2026-11-24: 3 ok, 1 failed',
      '2026-11-25: 0 ok, 0 failed',
    ]);
    // 4 of a scale of 4: the full height; an empty day draws no bar.
    const bars = [...svgElement.querySelectorAll('rect.chart-success, rect.chart-failure')];
    expect(bars.map((bar) => bar.getAttribute('class'))).toEqual(['chart-success', 'chart-failure']);
    const heights = bars.map((bar) => Number(bar.getAttribute('height')));
    expect(heights[0]! / heights[1]!).toBeCloseTo(3);
    expect([...svgElement.querySelectorAll('text')].map((text) => text.textContent)).toEqual([
      '2',
      '4',
      '2026-11-24',
      '2026-11-25',
    ]);
    // Its text equivalent: a table of the numbers, one row per bar, for screen readers.
    const table = svgElement.ownerDocument.querySelector('.visually-hidden > table#x-table')!;
    expect(table.querySelector('caption')?.textContent).toBe(`${SCRIPT}: the numbers`);
    expect([...table.querySelectorAll('tr')].map((row) => [...row.children].map((cell) => cell.textContent))).toEqual([
      ['Date', 'ok', 'failed'],
      ['2026-11-24', '3', '1'],
      ['2026-11-25', '0', '0'],
    ]);
  });
});
