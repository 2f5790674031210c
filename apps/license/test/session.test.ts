import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

describe('admin session duration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { SESSION_TTL_HOURS: '2' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps a session for SESSION_TTL_HOURS', async () => {
    const admin = await t.admin();
    expect((await t.http.get('/api/products').set('Cookie', admin.cookie)).status).toBe(200);
    const { rows } = await t.database.pool.query<{ hours: number }>(
      "SELECT extract(epoch FROM (max(expire) - now() AT TIME ZONE 'UTC')) / 3600 AS hours FROM license_session",
    );
    expect(rows[0]!.hours).toBeGreaterThan(1.9);
    expect(rows[0]!.hours).toBeLessThanOrEqual(2.01);
  });

  it('registers the admins of ADMIN_IDS at start-up and answers a signed-out request 401', async () => {
    const { rows } = await t.database.pool.query<{ user_id: string }>('SELECT user_id FROM admins');
    expect(rows.map((row) => row.user_id)).toContain('admin');
    const admin = await t.signIn('admin');
    await fetch(`${t.baseUrl}/auth/logout`, { headers: { Cookie: admin.cookie }, redirect: 'manual' });
    expect((await t.http.get('/api/products').set('Cookie', admin.cookie)).status).toBe(401);
  });
});
