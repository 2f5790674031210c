import { authenticator } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, testAdminId, type Session, type TestApp } from './helpers.js';
import { documentOf, textOf } from '@app/ui/testing/dom';

/** The visible text of a page, spaces collapsed. */
const JWT_SECRET = 'a-test-secret-for-the-settings-pages-0123456789';

describe(`the admin console's settings pages (${testDatabaseBackend()})`, () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await buildTestApp({ env: { JWT_SECRET } });
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
  /** A form post as a browser sends it (urlencoded), with the session's token unless told otherwise. */
  const post = (path: string, fields: Record<string, string>, session: Session = admin, csrf = true) =>
    t.http
      .post(path)
      .set('Cookie', session.cookie)
      .type('form')
      .send(csrf ? { _csrf: session.csrfToken, ...fields } : fields);
  /** Follows a 303 and answers the page it leads to. */
  const follow = async (res: { status: number; headers: Record<string, unknown> }, session: Session = admin) => {
    expect(res.status).toBe(303);
    return get(String(res.headers.location), session);
  };
  const auditOf = async (resourceId: string) =>
    (
      await t.database.pool.query<{ action: string; resource_type: string; user_id: string; success: boolean }>(
        'SELECT action, resource_type, user_id, success FROM audit_logs WHERE resource_id = $1 ORDER BY created_at',
        [resourceId],
      )
    ).rows;
  const validate = async (key: string) => (await t.http.post('/api/license/validate').send({ key })).status;

  it('sends visitors to sign in, refuses people who are not admins, and refuses a form without the CSRF token', async () => {
    for (const path of ['/settings', '/settings/admins', '/settings/two-factor', '/settings/tokens']) {
      expect(String((await get(path, null, 303)).headers.location)).toBe(`/?returnTo=${encodeURIComponent(path)}`);
    }
    const stranger = await t.signIn('not-an-admin-at-all');
    for (const path of ['/settings', '/settings/admins', '/settings/two-factor', '/settings/tokens'])
      await get(path, stranger, 403);
    expect((await post('/settings/panic', { enabled: 'on' }, stranger)).status).toBe(403);
    expect((await post('/settings/admins', { userId: 'sneaky' }, stranger)).status).toBe(403);
    expect((await post('/settings/panic', { enabled: 'on' }, admin, false)).status).toBe(403);
    expect((await post('/settings/admins', { userId: 'sneaky' }, admin, false)).status).toBe(403);
    expect((await post('/settings/tokens', { label: 'x', lifetime: '1d' }, admin, false)).status).toBe(403);
    expect(t.settings.get().security.panicMode).toBe(false);
    expect((await t.database.pool.query("SELECT 1 FROM admins WHERE user_id = 'sneaky'")).rowCount).toBe(0);
  });

  it('turns panic mode on (asking first) and off through the form, which changes what validation answers, audited', async () => {
    const license = await t.createLicense();
    expect(await validate(license.key)).toBe(200);
    const page = documentOf((await get('/settings')).text);
    expect(page.querySelector('nav.admin-nav a[aria-current="page"]')?.getAttribute('href')).toBe('/settings');
    const on = page.querySelector('form[action="/settings/panic"]')!;
    expect(on.getAttribute('data-ui-confirm')).toContain('License validation and the customer portal will answer 503');
    expect(on.querySelector('input[name="_csrf"]')?.getAttribute('value')).toBe(admin.csrfToken);

    const turnedOn = await follow(await post('/settings/panic', { enabled: 'on' }));
    expect(textOf(turnedOn.text)).toContain('Panic mode is on');
    expect(documentOf(turnedOn.text).querySelector('#panic-heading .badge')?.textContent).toBe('on');
    expect(await validate(license.key)).toBe(503);
    expect((await t.http.get('/api/admin/panic').set(admin.headers)).body.panicMode).toBe(true);
    // Off needs no question.
    expect(
      documentOf(turnedOn.text).querySelector('form[action="/settings/panic"]')?.hasAttribute('data-ui-confirm'),
    ).toBe(false);

    const turnedOff = await follow(await post('/settings/panic', { enabled: 'off' }));
    expect(textOf(turnedOff.text)).toContain('Panic mode is off');
    expect(await validate(license.key)).toBe(200);
    const audit = (await auditOf('config')).map((row) => `${row.action}:${row.user_id}`);
    expect(audit).toEqual([`suspend:${testAdminId}`, `activate:${testAdminId}`]);
  });

  it('saves the rate limits through the runtime configuration, and shows a mistake with its label', async () => {
    const saved = await follow(
      await post('/settings/rate-limit', {
        enabled: 'on',
        max: '7',
        windowSeconds: '120',
        userMax: '900',
        userWindowSeconds: '600',
      }),
    );
    expect(textOf(saved.text)).toContain('Rate limits saved.');
    expect(documentOf(saved.text).querySelector('[data-limit="public"]')?.textContent).toBe(
      '7 requests per 2 minutes per client IP address',
    );
    expect(documentOf(saved.text).querySelector('[data-limit="user"]')?.textContent).toBe(
      '900 requests per 10 minutes per signed-in person',
    );
    const config = (await t.http.get('/api/admin/config').set(admin.headers)).body.config;
    expect(config.rateLimit).toEqual({ enabled: true, windowMs: 120_000, max: 7 });
    expect(config.userRateLimit).toEqual({ windowMs: 600_000, max: 900 });

    const wrong = await post('/settings/rate-limit', {
      max: '',
      windowSeconds: '0',
      userMax: '900',
      userWindowSeconds: '600',
    });
    expect(wrong.status).toBe(400);
    const alert = documentOf(wrong.text).querySelector('[role="alert"]')?.textContent ?? '';
    expect(alert).toContain('Requests per window (public API)');
    expect(alert).toContain('Window in seconds (public API): at least 1 second');
    expect((await t.http.get('/api/admin/config').set(admin.headers)).body.config.rateLimit.max).toBe(7);

    // Off: validation is not limited; and back to a generous limit for the other tests.
    await follow(
      await post('/settings/rate-limit', {
        max: '100000',
        windowSeconds: '60',
        userMax: '1000',
        userWindowSeconds: '900',
      }),
    );
    expect((await t.http.get('/api/admin/config').set(admin.headers)).body.config.rateLimit.enabled).toBe(false);
    await follow(
      await post('/settings/rate-limit', {
        enabled: 'on',
        max: '100000',
        windowSeconds: '60',
        userMax: '1000',
        userWindowSeconds: '900',
      }),
    );
    // Three saves, and the refused form recorded as a failed write.
    expect((await auditOf('config')).filter((row) => row.action === 'update').map((row) => row.success)).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });

  it('adds an admin by provider user id, who then is one; refuses a duplicate; removes them (audited)', async () => {
    const empty = documentOf((await get('/settings/admins')).text);
    expect(empty.querySelector(`tr[data-admin="${testAdminId}"] .row-action`)?.textContent).toContain(
      'The last admin cannot be removed',
    );

    const before = await t.signIn('new-admin-1');
    expect((await t.http.get('/api/products').set(before.headers)).status).toBe(403);
    const added = await follow(await post('/settings/admins', { userId: ' new-admin-1 ' }));
    expect(textOf(added.text)).toContain('new-admin-1 is now an admin.');
    expect(documentOf(added.text).querySelector('tr[data-admin="new-admin-1"]')).not.toBeNull();
    expect((await t.http.get('/api/products').set(before.headers)).status).toBe(200);

    const again = await post('/settings/admins', { userId: 'new-admin-1' });
    expect(again.status).toBe(409);
    expect(textOf(again.text)).toContain('This user is already an admin.');
    const blank = await post('/settings/admins', { userId: '  ' });
    expect(blank.status).toBe(400);
    expect(textOf(blank.text)).toContain('Provider user id: enter the id.');

    // Their sign-in is recorded for the list.
    const signedIn = await t.signIn('new-admin-1');
    const list = documentOf((await get('/settings/admins')).text);
    expect(list.querySelector('tr[data-admin="new-admin-1"] td[data-label="Last sign-in"]')?.textContent).toMatch(
      /UTC/,
    );
    const remove = list.querySelector('tr[data-admin="new-admin-1"] form[action="/settings/admins/remove"]')!;
    expect(remove.getAttribute('data-ui-confirm')).toContain('Their sessions and API tokens stop working at once.');

    const removed = await follow(await post('/settings/admins/remove', { userId: 'new-admin-1' }));
    expect(textOf(removed.text)).toContain('new-admin-1 is no longer an admin.');
    expect((await t.http.get('/api/products').set(signedIn.headers)).status).toBe(403);
    expect(
      (await auditOf('new-admin-1'))
        .filter((row) => row.resource_type === 'admin' && row.action !== 'login')
        .map((row) => `${row.action}:${row.success}`),
    ).toEqual(['create:true', 'create:false', 'delete:true']);
  });

  it('refuses to remove the last admin, with the message, for themself and for anyone', async () => {
    const self = await follow(await post('/settings/admins/remove', { userId: testAdminId }));
    expect(documentOf(self.text).querySelector('[role="alert"]')?.textContent).toBe(
      'You are the last admin and cannot remove yourself: add another admin first.',
    );
    // A removed admin's own request is refused by the guard; the service says it for anyone else.
    const unknown = await follow(await post('/settings/admins/remove', { userId: 'nobody-here' }));
    expect(documentOf(unknown.text).querySelector('[role="alert"]')?.textContent).toBe('Admin not found.');
    expect((await t.http.get('/api/products').set(admin.headers)).status).toBe(200);
  });

  it('keeps at least one admin when two admins remove each other at the same moment', async () => {
    for (let round = 0; round < 3; round += 1) {
      const a = `mutual-a-${round}`;
      const b = `mutual-b-${round}`;
      await follow(await post('/settings/admins', { userId: a }));
      await follow(await post('/settings/admins', { userId: b }));
      const sessionA = await t.signIn(a);
      const sessionB = await t.signIn(b);
      // The test admin steps aside for this round, so a and b are the only two.
      await t.database.pool.query('UPDATE admins SET removed_at = now() WHERE user_id = $1', [testAdminId]);
      try {
        const [ab, ba] = await Promise.all([
          post('/settings/admins/remove', { userId: b }, sessionA),
          post('/settings/admins/remove', { userId: a }, sessionB),
        ]);
        // Whoever loses the race answers 303 with the last-admin message when their guard ran
        // before the other removal committed, or 403 when they were already removed by then:
        // both are right. The one who is left is never the one refused at the door.
        expect([ab.status, ba.status]).toContain(303);
        expect([303, 403]).toContain(ab.status);
        expect([303, 403]).toContain(ba.status);
        const left = (
          await t.database.pool.query<{ user_id: string }>('SELECT user_id FROM admins WHERE removed_at IS NULL')
        ).rows.map((row) => row.user_id);
        expect(left).toHaveLength(1);
        expect([a, b]).toContain(left[0]);
        if (ab.status === 403) expect(left).toEqual([b]);
        if (ba.status === 403) expect(left).toEqual([a]);
      } finally {
        await t.database.pool.query('UPDATE admins SET removed_at = NULL WHERE user_id = $1', [testAdminId]);
        await t.database.pool.query(
          'UPDATE admins SET removed_at = now() WHERE user_id = ANY($1) AND removed_at IS NULL',
          [[a, b]],
        );
      }
    }
  });

  it('remembers a removed admin across a restart even though ADMIN_IDS still lists them', async () => {
    const restarted = await buildTestApp({
      database: t.database,
      env: { ADMIN_IDS: `${testAdminId},mutual-a-0,fresh-from-env`, JWT_SECRET },
    });
    try {
      const rows = (
        await t.database.pool.query<{ user_id: string }>(
          'SELECT user_id FROM admins WHERE removed_at IS NULL ORDER BY user_id',
        )
      ).rows.map((row) => row.user_id);
      expect(rows).toContain('fresh-from-env');
      expect(rows).not.toContain('mutual-a-0');
      // Adding them again in the console brings them back.
      const again = await restarted.admin();
      const res = await restarted.http
        .post('/settings/admins')
        .set('Cookie', again.cookie)
        .type('form')
        .send({ _csrf: again.csrfToken, userId: 'mutual-a-0' });
      expect(res.status).toBe(303);
      expect(
        (await t.database.pool.query("SELECT 1 FROM admins WHERE user_id = 'mutual-a-0' AND removed_at IS NULL"))
          .rowCount,
      ).toBe(1);
    } finally {
      await restarted.close();
    }
  });

  it('sets two-factor up through the forms with a real code, shows the backup codes once, and turns it off with a code', async () => {
    const person = 'two-factor-admin';
    await follow(await post('/settings/admins', { userId: person }));
    const session = await t.signIn(person);
    const status = documentOf((await get('/settings/two-factor', session)).text);
    expect(status.querySelector('#status-heading .badge')?.textContent).toBe('off');

    const started = await post('/settings/two-factor/setup', {}, session);
    expect(started.status).toBe(303);
    expect(String(started.headers.location)).toBe('/settings/two-factor/setup');
    const setupPage = await get('/settings/two-factor/setup', session);
    expect(setupPage.headers['cache-control']).toBe('no-store');
    const setup = documentOf(setupPage.text);
    expect(setup.querySelector('img.qr')?.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(setup.querySelector('img.qr')?.getAttribute('alt')).toBe('QR code for your authenticator app');
    const secret = setup.querySelector('[data-secret]')!.getAttribute('data-secret')!;
    expect(setup.querySelector('[data-secret]')?.textContent?.replace(/\s/g, '')).toBe(secret);
    const field = setup.querySelector('form[action="/settings/two-factor/enable"] input[name="code"]')!;
    expect(field.closest('label')?.textContent).toContain('Code from your authenticator app');

    // A wrong code: the same secret again, with the message.
    const wrongCode = authenticator.generate(secret) === '000000' ? '111111' : '000000';
    const wrong = await post('/settings/two-factor/enable', { code: wrongCode }, session);
    expect(wrong.status).toBe(400);
    expect(documentOf(wrong.text).querySelector('[role="alert"]')?.textContent).toContain('That code is not right');
    expect(documentOf(wrong.text).querySelector('[data-secret]')?.getAttribute('data-secret')).toBe(secret);

    const enabled = await post('/settings/two-factor/enable', { code: authenticator.generate(secret) }, session);
    expect(enabled.status).toBe(200);
    expect(enabled.headers['cache-control']).toBe('no-store');
    const codes = [...documentOf(enabled.text).querySelectorAll('ul.codes li')].map((item) => item.textContent);
    expect(codes).toHaveLength(10);
    expect(codes[0]).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    // Once: the page never shows them again; the session that enabled it stays verified.
    const after = await get('/settings/two-factor', session);
    expect(after.text).not.toContain(codes[0]);
    expect(documentOf(after.text).querySelector('#status-heading .badge')?.textContent).toBe('on');
    expect(documentOf(after.text).querySelector('[data-count="backup-codes"]')?.textContent).toBe('10');
    expect((await t.http.get('/api/2fa/status').set('Cookie', session.cookie)).body).toMatchObject({
      enabled: true,
      verified: true,
    });
    // Setup cannot start over while it is on.
    expect(textOf((await follow(await post('/settings/two-factor/setup', {}, session), session)).text)).toContain(
      'Two-factor authentication is already enabled',
    );

    // Off needs a code: a wrong one keeps it on.
    const refused = await follow(await post('/settings/two-factor/disable', { code: wrongCode }, session), session);
    expect(documentOf(refused.text).querySelector('[role="alert"]')?.textContent).toContain('Two-factor is still on');
    const off = await follow(await post('/settings/two-factor/disable', { code: codes[1]! }, session), session);
    expect(textOf(off.text)).toContain('Two-factor is off.');
    expect((await t.http.get('/api/2fa/status').set('Cookie', session.cookie)).body.enabled).toBe(false);
    expect((await auditOf(person)).filter((row) => row.action === 'update').map((row) => row.success)).toEqual([
      true,
      true,
    ]);
  });

  it('issues a token shown once that works as a bearer on the admin API, lists it, and revokes it', async () => {
    const empty = await get('/settings/tokens');
    expect(textOf(empty.text)).toContain('No tokens yet.');
    const missing = await post('/settings/tokens', { label: '', lifetime: '7d' });
    expect(missing.status).toBe(400);
    expect(textOf(missing.text)).toContain('Name: enter a name');

    const issued = await post('/settings/tokens', { label: 'Billing sync', lifetime: '7d' });
    expect(issued.status).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    const page = documentOf(issued.text);
    const token = page.querySelector('textarea.token')?.textContent ?? '';
    expect(token.split('.')).toHaveLength(3);
    expect(page.querySelector('.new-token')?.textContent).toContain('shown only this once');
    const row = page.querySelector('table.tokens tbody tr')!;
    const id = row.getAttribute('data-token')!;
    expect(row.querySelector('td[data-label="Name"]')?.textContent).toBe('Billing sync');
    expect(row.querySelector('td[data-label="State"]')?.textContent).toBe('active');
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
      jti: string;
    };
    expect(claims.jti).toBe(id);
    const days = (claims.exp * 1000 - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(7);

    // Once: the list never shows it again.
    expect((await get('/settings/tokens')).text).not.toContain(token);
    const bearer = { Authorization: `Bearer ${token}` };
    expect((await t.http.get('/api/products').set(bearer)).status).toBe(200);

    // The API's own token is recorded too, and its answer is unchanged.
    const api = await t.http.post('/api/auth/token').set(admin.headers);
    expect(Object.keys(api.body).sort()).toEqual(['expiresAt', 'success', 'token', 'tokenType']);
    expect(textOf((await get('/settings/tokens')).text)).toContain('Issued through POST /api/auth/token');

    const revoke = documentOf((await get('/settings/tokens')).text).querySelector(`tr[data-token="${id}"] form`)!;
    expect(revoke.getAttribute('data-ui-confirm')).toContain('Revoke the token “Billing sync”?');
    const revoked = await follow(await post(`/settings/tokens/${id}/revoke`, {}));
    expect(textOf(revoked.text)).toContain('Token “Billing sync” revoked');
    expect(documentOf(revoked.text).querySelector(`tr[data-token="${id}"] td[data-label="State"]`)?.textContent).toBe(
      'revoked',
    );
    const refused = await t.http.get('/api/products').set(bearer);
    expect(refused.status).toBe(401);
    // The other token still works.
    expect((await t.http.get('/api/products').set({ Authorization: `Bearer ${api.body.token}` })).status).toBe(200);
    expect((await auditOf(testAdminId)).filter((entry) => entry.action === 'revoke')).toHaveLength(1);
    expect((await post('/settings/tokens/no-such-token/revoke', {})).status).toBe(303);

    // Names are text, never markup.
    const hostile = '<script>alert(1)</script> "><img src=x onerror=alert(1)>';
    const escaped = documentOf((await post('/settings/tokens', { label: hostile, lifetime: '1h' })).text);
    expect(escaped.querySelector('script:not([src]):not([type="application/json"]), img[src="x"]')).toBeNull();
    expect(escaped.querySelector('#new-token-heading')?.textContent).toBe(`Token “${hostile}” issued`);
  });
});
