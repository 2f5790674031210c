import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { authenticator } from 'otplib';
import { buildTestApp, type TestApp } from './helpers.js';
import { eventually, startSmtpStandIn, type SmtpStandIn } from './operations/peers.js';

const DISABLE_PASSWORD = 'correct horse battery staple';

/** A six-digit code that is certainly not valid for the secret right now. */
function wrongCode(secret: string): string {
  const valid = new Set(
    [-30_000, 0, 30_000].map((offset) => authenticator.clone({ epoch: Date.now() + offset }).generate(secret)),
  );
  for (let n = 0; ; n += 1) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

describe('two-factor sign-in of admins', () => {
  let t: TestApp;
  const api = () => request(t.baseUrl);
  const get = (path: string, s: { cookie: string }) => api().get(path).set('Cookie', s.cookie);
  const post = (path: string, s: { cookie: string; csrfToken: string }, body: object = {}) =>
    api().post(path).set('Cookie', s.cookie).set('X-CSRF-Token', s.csrfToken).send(body);

  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        ADMIN_IDS: 'admin-1,admin-2',
        TWO_FACTOR_DISABLE_PASSWORD: DISABLE_PASSWORD,
        JWT_SECRET: 'jwt-secret-for-two-factor-tests-0123456789',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the two-factor routes to visitors (401) and to users who are not admins (403)', async () => {
    const anonymous = await api().get('/api/2fa/status');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, error: 'Unauthorized' });
    const user = await t.signIn('not-an-admin');
    expect((await get('/api/2fa/setup', user)).status).toBe(403);
    expect((await post('/api/2fa/verify', user, { token: '123456' })).status).toBe(403);
  });

  it('walks setup, enable, the gate, verify with a code and with a backup code (once), and disable', async () => {
    const first = await t.signIn('admin-1');
    expect((await get('/api/2fa/status', first)).body).toMatchObject({
      success: true,
      enabled: false,
      required: false,
    });

    const setup = await get('/api/2fa/setup', first);
    expect(setup.status).toBe(200);
    const { secret, otpauthUrl, qrCode } = setup.body as { secret: string; otpauthUrl: string; qrCode: string };
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/.+\?secret=/);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(qrCode).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]{100,}$/);
    expect(setup.headers['cache-control']).toBe('no-store');

    const wrong = await post('/api/2fa/enable', first, { token: wrongCode(secret) });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ success: false, error: 'Invalid token' });
    expect((await get('/api/2fa/status', first)).body.enabled).toBe(false);

    const enabled = await post('/api/2fa/enable', first, { token: authenticator.generate(secret) });
    expect(enabled.status).toBe(200);
    const backupCodes = enabled.body.backupCodes as string[];
    expect(backupCodes).toHaveLength(10);
    expect(new Set(backupCodes).size).toBe(10);
    // The session that enabled it has just proved the authenticator: it keeps working.
    expect((await get('/api/products', first)).status).toBe(200);
    // The secret is never handed out again once enabled.
    expect((await get('/api/2fa/setup', first)).body).toEqual({
      success: false,
      error: 'Two-factor authentication is already enabled',
    });
    // And it is not stored in plain text.
    const stored = await t.database.pool.query(
      'SELECT secret, pending_secret FROM admin_two_factor WHERE user_id = $1',
      ['admin-1'],
    );
    expect(JSON.stringify(stored.rows)).not.toContain(secret);
    const hashes = await t.database.pool.query<{ code_hash: string }>(
      'SELECT code_hash FROM admin_backup_codes WHERE user_id = $1',
      ['admin-1'],
    );
    expect(hashes.rows).toHaveLength(10);
    expect(hashes.rows.map((row) => row.code_hash).join()).not.toContain(backupCodes[0]!.replace('-', ''));

    // A new session of the same admin gets nothing but the two-factor routes until it verifies.
    const second = await t.signIn('admin-1');
    for (const path of ['/api/products', '/api/audit', '/api/export/licenses/csv']) {
      const refused = await get(path, second);
      expect(refused.status, path).toBe(403);
      expect(refused.body).toMatchObject({ success: false, error: 'Two-factor verification required' });
    }
    expect((await post('/api/auth/token', second)).status).toBe(403); // no bearer token around the gate
    expect((await post('/api/2fa/disable', second, { password: DISABLE_PASSWORD })).status).toBe(403);
    expect((await get('/api/2fa/status', second)).body).toMatchObject({
      enabled: true,
      required: false,
      verified: false,
    });

    const badCode = await post('/api/2fa/verify', second, { token: wrongCode(secret) });
    expect(badCode.status).toBe(400);
    expect(badCode.body).toEqual({ success: false, error: 'Invalid token or backup code' });
    const code = authenticator.generate(secret);
    const verified = await post('/api/2fa/verify', second, { token: code });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ success: true, verified: true });
    expect((await get('/api/products', second)).status).toBe(200);
    expect((await get('/api/2fa/status', second)).body).toMatchObject({ enabled: true, verified: true });
    // Repeating the code in the session it already verified does no harm and is accepted.
    expect((await post('/api/2fa/verify', second, { token: code })).status).toBe(200);

    // A third session verifies with a backup code; a fourth cannot use the same code again,
    // nor replay the TOTP code already accepted.
    const third = await t.signIn('admin-1');
    const withBackup = await post('/api/2fa/verify', third, { backupCode: backupCodes[0] });
    expect(withBackup.status).toBe(200);
    expect(withBackup.body).toMatchObject({ success: true, verified: true, backupCodesRemaining: 9 });
    expect((await get('/api/audit', third)).status).toBe(200);
    const fourth = await t.signIn('admin-1');
    const reused = await post('/api/2fa/verify', fourth, { backupCode: backupCodes[0] });
    expect(reused.status).toBe(400);
    expect(reused.body).toEqual({ success: false, error: 'Invalid token or backup code' });
    expect((await post('/api/2fa/verify', fourth, { token: code })).status).toBe(400);
    expect((await get('/api/products', fourth)).status).toBe(403);
    // Backup codes are typed by people: case and dashes do not matter.
    expect(
      (await post('/api/2fa/verify', fourth, { backupCode: backupCodes[1]!.toUpperCase().replace('-', ' ') })).status,
    ).toBe(200);

    // Programs with a bearer token (issued to a verified session) are not gated.
    const issued = await post('/api/auth/token', second);
    expect(issued.status).toBe(200);
    expect((await api().get('/api/products').set('Authorization', `Bearer ${issued.body.token}`)).status).toBe(200);

    // Disable needs the configured password.
    const noPassword = await post('/api/2fa/disable', second);
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.error).toMatch(/Password is required/);
    const badPassword = await post('/api/2fa/disable', second, { password: 'wrong' });
    expect(badPassword.status).toBe(403);
    expect(badPassword.body).toEqual({ success: false, error: 'Invalid password' });
    const disabled = await post('/api/2fa/disable', second, { password: DISABLE_PASSWORD });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ success: true });
    expect((await get('/api/2fa/status', second)).body).toMatchObject({ enabled: false, required: false });
    const fifth = await t.signIn('admin-1');
    expect((await get('/api/products', fifth)).status).toBe(200);
    const verifyWhileOff = await post('/api/2fa/verify', fifth, { token: authenticator.generate(secret) });
    expect(verifyWhileOff.status).toBe(400);
    expect(verifyWhileOff.body).toEqual({ success: false, error: 'Invalid token or backup code' });
    // Disabling what is already off answers success: the caller gets the state it asked for.
    expect((await post('/api/2fa/disable', fifth, {})).body).toMatchObject({ success: true });

    // Every step is in the audit log.
    const audit = await get('/api/audit?resourceType=admin&resourceId=admin-1&limit=1000', fifth);
    const entries = audit.body.auditLogs as {
      action: string;
      success: boolean;
      changes: { after: Record<string, unknown> | null };
    }[];
    const has = (action: string, success: boolean, after: Record<string, unknown>) =>
      entries.some(
        (entry) =>
          entry.action === action &&
          entry.success === success &&
          expect.objectContaining(after).asymmetricMatch(entry.changes.after),
      );
    expect(has('update', true, { twoFactorEnabled: true })).toBe(true);
    expect(has('update', true, { twoFactorEnabled: false })).toBe(true);
    expect(has('login', true, { twoFactor: 'totp' })).toBe(true);
    expect(has('login', true, { twoFactor: 'backup_code' })).toBe(true);
    expect(has('login', false, { twoFactor: 'invalid_code' })).toBe(true);
    expect(has('view', true, { twoFactorSetup: 'secret issued' })).toBe(true);
  });

  it('limits wrong codes to 5 per 15 minutes per admin (429), even when the sixth is right', async () => {
    const owner = await t.signIn('admin-2');
    const { secret } = (await get('/api/2fa/setup', owner)).body as { secret: string };
    expect((await post('/api/2fa/enable', owner, { token: authenticator.generate(secret) })).status).toBe(200);
    const attacker = await t.signIn('admin-2');
    for (let i = 0; i < 5; i += 1) {
      expect((await post('/api/2fa/verify', attacker, { token: wrongCode(secret) })).status).toBe(400);
    }
    const limited = await post('/api/2fa/verify', attacker, { token: authenticator.generate(secret) });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: 'Too many requests, please try again later' });
    expect((await get('/api/products', attacker)).status).toBe(403);
  });

  it('answers 400 Validation failed without a token or backup code', async () => {
    const session = await t.signIn('admin-2');
    const response = await post('/api/2fa/verify', session, {});
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
  });
});

describe('two-factor required by the configuration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ADMIN_IDS: 'admin-1,admin-2', TWO_FACTOR_REQUIRED: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lets an admin without two-factor do nothing but set it up, then lets them in', async () => {
    const session = await t.signIn('admin-1');
    const get = (path: string) => request(t.baseUrl).get(path).set('Cookie', session.cookie);
    const refused = await get('/api/products');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'Two-factor verification required', twoFactor: 'setup' });
    expect((await get('/api/2fa/status')).body).toMatchObject({ enabled: false, required: true });
    const { secret } = (await get('/api/2fa/setup')).body as { secret: string };
    const enabled = await request(t.baseUrl)
      .post('/api/2fa/enable')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrfToken)
      .send({ token: authenticator.generate(secret) });
    expect(enabled.status).toBe(200);
    expect((await get('/api/products')).status).toBe(200);
    const disable = await request(t.baseUrl)
      .post('/api/2fa/disable')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrfToken)
      .send({});
    expect(disable.status).toBe(403);
    expect(disable.body.error).toMatch(/required/);
  });
});

describe('two-factor failures as security notifications', () => {
  let t: TestApp;
  let smtp: SmtpStandIn;
  beforeAll(async () => {
    smtp = await startSmtpStandIn();
    t = await buildTestApp({
      env: {
        ADMIN_IDS: 'admin-1',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        NOTIFY_EMAIL_TO: 'security@example.com',
        NOTIFY_SECURITY: 'email',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('mails the security channel when an admin session sends a wrong code', async () => {
    const session = await t.signIn('admin-1');
    const post = (path: string, body: object) =>
      request(t.baseUrl).post(path).set('Cookie', session.cookie).set('X-CSRF-Token', session.csrfToken).send(body);
    const { secret } = (await request(t.baseUrl).get('/api/2fa/setup').set('Cookie', session.cookie)).body as {
      secret: string;
    };
    expect((await post('/api/2fa/enable', { token: authenticator.generate(secret) })).status).toBe(200);
    const other = await t.signIn('admin-1');
    const wrong = await request(t.baseUrl)
      .post('/api/2fa/verify')
      .set('Cookie', other.cookie)
      .set('X-CSRF-Token', other.csrfToken)
      .send({ token: wrongCode(secret) });
    expect(wrong.status).toBe(400);
    const mail = await eventually(() =>
      smtp.mails.find((candidate) => candidate.raw.includes('Failed two-factor sign-in of admin admin-1')),
    );
    expect(mail.raw).toContain('security@example.com');
  });
});
