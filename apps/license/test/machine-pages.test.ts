import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

// The pages' side of machines and floating seats (decisions.md, Wave 3): the console's license
// page lists machines with a Deactivate form, both license forms set floating seats, and the
// customer's page lists the machines of their own license with the Release button.

const HOSTILE = '<img src=x onerror=alert(1)>';
const SEATS_LABEL = 'Floating seats: heartbeat every N seconds';
const EMPTY = 'No machines yet: a machine is added when an application activates or validates with a hardware id.';

describe(`machines and floating seats on the pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp();
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = async (path: string, session: Session = admin, status = 200) => {
    const res = await t.http.get(path).set('Cookie', session.cookie);
    expect(res.status, `${path} answered ${res.status}`).toBe(status);
    return res.text;
  };
  const activate = (key: string, fingerprint: string, name?: string, platform?: string) =>
    t.http.post('/api/license/machines/activate').send({ key, fingerprint, name, platform }).expect(201);
  const fingerprints = async (id: string) =>
    (await t.context.services.machines.list(id)).map((machine) => machine.fingerprint);
  const form = (path: string, fields: Record<string, string>, session: Session = admin) =>
    t.http.post(path).set('Cookie', session.cookie).type('form').send(fields);
  const labels = (html: string) =>
    [...documentOf(html).querySelectorAll('label .label')].map((element) => element.textContent);

  it("lists a license's machines with name, platform, fingerprint, last seen and lease end; empty says how one is added", async () => {
    const license = await t.createLicense({ hwidLimit: 3 });
    const empty = documentOf(await get(`/licenses/${license._id}`));
    expect(empty.querySelector('#machines h2')?.textContent).toBe('Machines');
    expect(empty.querySelector('#machines')?.textContent).toContain(EMPTY);

    await activate(license.key, 'fp-office', 'Office laptop', 'linux');
    await t.http.post('/api/license/validate').send({ key: license.key, hwid: 'fp-bare' }).expect(200);
    const document = documentOf(await get(`/licenses/${license._id}`));
    const rows = [...document.querySelectorAll('#machines tbody tr')];
    expect(rows).toHaveLength(2);
    const cell = (row: Element, label: string) => row.querySelector(`td[data-label="${label}"]`)!;
    expect(cell(rows[0]!, 'Name').textContent).toBe('Office laptop');
    expect(cell(rows[0]!, 'Platform').textContent).toBe('linux');
    expect(cell(rows[0]!, 'Fingerprint').textContent).toBe('fp-office');
    const seen = cell(rows[0]!, 'Last seen').querySelector('time')!;
    expect(seen.textContent).toMatch(/^(just now|1 minute ago)$/);
    expect(seen.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(Number.isNaN(Date.parse(seen.getAttribute('datetime')!))).toBe(false);
    expect(cell(rows[0]!, 'Lease end').textContent).toBe('—');
    expect(cell(rows[1]!, 'Name').textContent).toBe('—');
    expect(cell(rows[1]!, 'Fingerprint').textContent).toBe('fp-bare');
    const deactivate = rows[0]!.querySelector('form')!;
    expect(deactivate.getAttribute('action')).toBe(
      `/licenses/${license._id}/machines/${rows[0]!.getAttribute('data-machine')}/deactivate`,
    );
    expect(deactivate.getAttribute('data-ui-confirm')).toContain('Office laptop');
    expect(deactivate.getAttribute('data-ui-confirm-button')).toBe('Deactivate');
    expect(deactivate.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value).toBe(admin.csrfToken);
    expect(deactivate.querySelector('button')?.textContent).toBe('Deactivate Office laptop');
  });

  it("shows a floating seat's lease end relative, exact in its title", async () => {
    const license = await t.createLicense({ hwidLimit: 1, heartbeatSeconds: 600 });
    await activate(license.key, 'fp-float', 'Kiosk');
    const document = documentOf(await get(`/licenses/${license._id}`));
    const lease = document.querySelector('#machines td[data-label="Lease end"] time')!;
    expect(lease.textContent).toMatch(/^in (9|10) minutes$/);
    expect(lease.getAttribute('title')).toMatch(/ UTC$/);
    expect(document.querySelector('[data-heartbeat]')?.textContent).toBe('heartbeat every 600 seconds');
  });

  it('deactivates a machine with the form: the seat is free, the audit has it, the flash names the machine', async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    const named = (await activate(license.key, 'fp-named', 'Render box')).body.machine._id as string;
    const bare = (await activate(license.key, 'fp-nameless')).body.machine._id as string;
    const first = await form(`/licenses/${license._id}/machines/${named}/deactivate`, { _csrf: admin.csrfToken });
    expect([first.status, first.headers.location]).toEqual([303, `/licenses/${license._id}`]);
    expect(await fingerprints(license._id)).toEqual(['fp-nameless']);
    expect(textOf(await get(`/licenses/${license._id}`))).toContain('Machine Render box deactivated.');
    await form(`/licenses/${license._id}/machines/${bare}/deactivate`, { _csrf: admin.csrfToken }).expect(303);
    const page = textOf(await get(`/licenses/${license._id}`));
    expect(page).toContain('Machine fp-nameless deactivated.');
    expect(page).toContain(EMPTY);
    expect((await t.context.services.licenses.detail(license._id)).usedHwids).toEqual([]);
    const audit = await t.database.pool.query<{ action: string; success: boolean }>(
      `SELECT action, success FROM audit_logs WHERE resource_type = 'license' AND resource_id = $1 AND action = 'delete'`,
      [license._id],
    );
    expect(audit.rows).toEqual([
      { action: 'delete', success: true },
      { action: 'delete', success: true },
    ]);
    // A machine that is gone (deactivated twice) answers the not-found page.
    await form(`/licenses/${license._id}/machines/${bare}/deactivate`, { _csrf: admin.csrfToken }).expect(404);
  });

  it('refuses deactivation and floating seats without the CSRF token, and for non-admins', async () => {
    const license = await t.createLicense({ hwidLimit: 2 });
    const machine = (await activate(license.key, 'fp-kept')).body.machine._id as string;
    const deactivate = `/licenses/${license._id}/machines/${machine}/deactivate`;
    expect((await form(deactivate, {})).status).toBe(403);
    expect((await form(deactivate, { _csrf: 'forged' })).status).toBe(403);
    expect((await form(`/licenses/${license._id}/seats`, { heartbeatSeconds: '60' })).status).toBe(403);
    const { session: customer } = await t.customer();
    expect(
      (await t.http.post(deactivate).set(customer.headers).type('form').send({ _csrf: customer.csrfToken })).status,
    ).toBe(403);
    expect(
      (
        await t.http
          .post(`/licenses/${license._id}/seats`)
          .set(customer.headers)
          .type('form')
          .send({ _csrf: customer.csrfToken, heartbeatSeconds: '60' })
      ).status,
    ).toBe(403);
    expect(await fingerprints(license._id)).toEqual(['fp-kept']);
    expect((await t.context.services.licenses.detail(license._id)).heartbeatSeconds).toBeNull();
  });

  it("sets floating seats with the new-license form, with errors in the form's style", async () => {
    const product = await t.createProduct({ name: 'Seats Product' });
    expect(labels(await get('/licenses/new'))).toContain(SEATS_LABEL);
    for (const wrong of ['9', '86401', '1.5', 'soon']) {
      const refused = await form('/licenses', {
        _csrf: admin.csrfToken,
        product: product._id,
        licenseType: 'fixed',
        ipLimit: '0',
        hwidLimit: '0',
        heartbeatSeconds: wrong,
      });
      expect(refused.status, wrong).toBe(400);
      const document = documentOf(refused.text);
      expect(document.querySelector('[role="alert"], .alert-error')?.textContent).toContain(
        'Check these fields: heartbeatSeconds.',
      );
      expect(textOf(refused.text)).toContain('Floating seats: a whole number of seconds from 10 to 86,400, or empty.');
      expect(document.querySelector('input[name="heartbeatSeconds"]')?.getAttribute('value')).toBe(wrong);
    }
    const created = await form('/licenses', {
      _csrf: admin.csrfToken,
      product: product._id,
      licenseType: 'fixed',
      ipLimit: '0',
      hwidLimit: '2',
      heartbeatSeconds: '300',
    }).expect(303);
    const id = String(created.headers.location).replace('/licenses/', '');
    expect((await t.context.services.licenses.detail(id)).heartbeatSeconds).toBe(300);
    const plain = await form('/licenses', {
      _csrf: admin.csrfToken,
      product: product._id,
      licenseType: 'fixed',
      ipLimit: '0',
      hwidLimit: '2',
      heartbeatSeconds: '',
    }).expect(303);
    expect(
      (await t.context.services.licenses.detail(String(plain.headers.location).replace('/licenses/', '')))
        .heartbeatSeconds,
    ).toBeNull();
  });

  it('sets and clears floating seats from the license page; out of range says so and changes nothing', async () => {
    const license = await t.createLicense({});
    const page = await get(`/licenses/${license._id}`);
    expect(labels(page)).toContain(SEATS_LABEL);
    expect(documentOf(page).querySelector('[data-heartbeat]')?.textContent).toBe('no: seats are kept until released');
    await form(`/licenses/${license._id}/seats`, { _csrf: admin.csrfToken, heartbeatSeconds: '86400' }).expect(303);
    expect((await t.context.services.licenses.detail(license._id)).heartbeatSeconds).toBe(86_400);
    const saved = documentOf(await get(`/licenses/${license._id}`));
    expect(saved.body.textContent).toContain('Floating seats saved: heartbeat every 86,400 seconds.');
    expect(saved.querySelector<HTMLInputElement>('input[name="heartbeatSeconds"]')?.value).toBe('86400');
    await form(`/licenses/${license._id}/seats`, { _csrf: admin.csrfToken, heartbeatSeconds: '5' }).expect(303);
    expect(textOf(await get(`/licenses/${license._id}`))).toContain('Check these fields: heartbeatSeconds.');
    expect((await t.context.services.licenses.detail(license._id)).heartbeatSeconds).toBe(86_400);
    await form(`/licenses/${license._id}/seats`, { _csrf: admin.csrfToken, heartbeatSeconds: '' }).expect(303);
    expect((await t.context.services.licenses.detail(license._id)).heartbeatSeconds).toBeNull();
    expect(textOf(await get(`/licenses/${license._id}`))).toContain(
      'Floating seats off: seats are kept until released.',
    );
  });

  it('shows a customer the machines of their own license by name (fingerprint when unnamed), last seen, and Release', async () => {
    const { customer, session } = await t.customer();
    const { customer: other, session: otherSession } = await t.customer();
    const mine = await t.createLicense({ customer: customer._id, hwidLimit: 3 });
    const theirs = await t.createLicense({ customer: other._id, hwidLimit: 3 });
    await activate(mine.key, 'fp-mine', 'My desktop', 'windows');
    await activate(mine.key, 'fp-unnamed');
    await activate(theirs.key, 'fp-theirs', 'Their laptop');

    const document = documentOf(await get(`/my-licenses/${mine._id}`, session));
    const rows = [...document.querySelectorAll('table.machines tbody tr')];
    expect(rows.map((row) => row.querySelector('[data-machine-name]')?.textContent)).toEqual([
      'My desktop (windows)',
      'fp-unnamed',
    ]);
    expect(rows[0]!.querySelector('[data-last-seen]')?.textContent).toMatch(/^last seen (just now|1 minute ago)$/);
    expect(rows[0]!.querySelector('[data-last-seen] time')?.getAttribute('title')).toMatch(/ UTC$/);
    const release = rows.map((row) => row.querySelector('button[data-release-kind="hwid"]')!);
    expect(release.map((button) => button.getAttribute('data-release-value'))).toEqual(['fp-mine', 'fp-unnamed']);
    expect(release.map((button) => button.textContent)).toEqual(['Release My desktop', 'Release fp-unnamed']);
    expect(document.body.textContent).not.toContain('Their laptop');

    // Another customer's license is the 404 page, its machines with it.
    const foreign = await get(`/my-licenses/${mine._id}`, otherSession, 404);
    expect(foreign).not.toContain('My desktop');
    expect(textOf(await get(`/my-licenses/${theirs._id}`, otherSession))).toContain('Their laptop');

    // Release by the fingerprint releases that machine.
    await t.http
      .post(`/api/customer/licenses/${mine._id}/release`)
      .set(session.headers)
      .send({ hwid: 'fp-mine' })
      .expect(200);
    expect(await fingerprints(mine._id)).toEqual(['fp-unnamed']);
  });

  it('escapes a hostile machine name and platform on both pages', async () => {
    const { customer, session } = await t.customer();
    const license = await t.createLicense({ customer: customer._id, hwidLimit: 2 });
    await activate(license.key, 'fp-hostile', HOSTILE, HOSTILE);
    await activate(license.key, HOSTILE);
    for (const [path, who] of [
      [`/licenses/${license._id}`, admin],
      [`/my-licenses/${license._id}`, session],
    ] as const) {
      const html = await get(path, who);
      expect(html).not.toMatch(/<img src=x/i);
      const document = documentOf(html);
      const attributes = [...document.querySelectorAll('*')].flatMap((element) => [...element.attributes]);
      expect(
        attributes.filter((attribute) => attribute.name.startsWith('on')).map((attribute) => attribute.name),
      ).toEqual([]);
      expect(document.querySelectorAll('img[src="x"]')).toHaveLength(0);
      expect(textOf(html)).toContain(HOSTILE);
    }
    const console = documentOf(await get(`/licenses/${license._id}`));
    expect(console.querySelector('#machines form')?.getAttribute('data-ui-confirm')).toContain(HOSTILE);
    const machine = (await t.context.services.machines.list(license._id))[0]!;
    await form(`/licenses/${license._id}/machines/${machine._id}/deactivate`, { _csrf: admin.csrfToken }).expect(303);
    const after = await get(`/licenses/${license._id}`);
    expect(after).not.toMatch(/<img src=x/i);
    expect(textOf(after)).toContain(`Machine ${HOSTILE} deactivated.`);
  });
});
