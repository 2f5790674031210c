import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../src/audit/audit.service.js';
import { buildTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  const actor = (userId: string) => ({ userId, ip: '10.0.0.1', userAgent: 'test' });
  for (let i = 0; i < 120; i++) {
    await recordAudit(t.database.pool, actor(i % 2 ? 'ann' : 'ben'), {
      action: i % 3 ? 'update' : 'create',
      resourceType: 'license',
      resourceId: `r-${i % 5}`,
      success: i % 4 !== 0,
      before: { n: i - 1 },
      after: { n: i },
    });
  }
});
afterAll(async () => {
  await t?.close();
});

describe('audit log API', () => {
  it('answers 401 without a session', async () => {
    expect((await t.http.get('/api/audit')).status).toBe(401);
    expect((await t.http.get('/api/audit/00000000-0000-0000-0000-000000000000')).status).toBe(401);
  });

  it('pages with limit 100 by default, skip, count and total', async () => {
    const admin = await t.admin();
    const first = await t.http.get('/api/audit?userId=ann').set('Cookie', admin.cookie);
    expect(first.body).toMatchObject({ success: true, count: 60, total: 60 });
    const all = await t.http.get('/api/audit').set('Cookie', admin.cookie);
    expect(all.body.count).toBe(100);
    expect(all.body.total).toBeGreaterThanOrEqual(120);
    const page = await t.http.get('/api/audit?userId=ann&limit=25&skip=50').set('Cookie', admin.cookie);
    expect(page.body).toMatchObject({ count: 10, total: 60 });
    expect((await t.http.get('/api/audit?limit=1001').set('Cookie', admin.cookie)).status).toBe(400);
    expect((await t.http.get('/api/audit?limit=1000').set('Cookie', admin.cookie)).status).toBe(200);
  });

  it('filters by userId, resourceType, resourceId, action, success and dates', async () => {
    const admin = await t.admin();
    const get = async (query: string) => (await t.http.get(`/api/audit?${query}`).set('Cookie', admin.cookie)).body;
    expect((await get('resourceId=r-0&userId=ben')).total).toBe(12);
    expect((await get('action=create&userId=ann')).total).toBe(20);
    expect((await get('success=false&userId=ben')).total).toBe(30);
    expect((await get('resourceType=product&userId=ben')).total).toBe(0);
    expect((await get('startDate=2000-01-01&endDate=2001-01-01')).total).toBe(0);
    expect((await get(`startDate=${new Date(Date.now() - 3_600_000).toISOString()}&userId=ann`)).total).toBe(60);
    const bad = await t.http.get('/api/audit?action=dance').set('Cookie', admin.cookie);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toHaveProperty('action');
  });

  it('reads one entry with every field, and 404 for an unknown id', async () => {
    const admin = await t.admin();
    const list = await t.http.get('/api/audit?userId=ann&limit=1').set('Cookie', admin.cookie);
    const entry = list.body.auditLogs[0];
    const one = await t.http.get(`/api/audit/${entry._id}`).set('Cookie', admin.cookie);
    expect(one.status).toBe(200);
    expect(one.body.auditLog).toEqual({
      _id: entry._id,
      userId: 'ann',
      action: expect.any(String),
      resourceType: 'license',
      resourceId: expect.any(String),
      changes: { before: expect.any(Object), after: expect.any(Object) },
      ip: '10.0.0.1',
      userAgent: 'test',
      success: expect.any(Boolean),
      createdAt: expect.any(String),
    });
    const missing = await t.http.get('/api/audit/00000000-0000-0000-0000-000000000000').set('Cookie', admin.cookie);
    expect(missing.status).toBe(404);
  });

  it('records the admin sign-in', async () => {
    const admin = await t.admin();
    const logins = await t.http.get('/api/audit?action=login&userId=admin').set('Cookie', admin.cookie);
    expect(logins.body.total).toBeGreaterThanOrEqual(1);
    expect(logins.body.auditLogs[0]).toMatchObject({ resourceType: 'admin', resourceId: 'admin', success: true });
  });

  it('records a failed admin write with success false', async () => {
    const admin = await t.admin();
    const missing = '00000000-0000-0000-0000-000000000000';
    expect(
      (await t.http.post(`/api/licenses/${missing}/suspend`).set(admin.headers).send({ reason: 'x' })).status,
    ).toBe(404);
    expect((await t.http.post('/api/products').set(admin.headers).send({ name: '' })).status).toBe(400);
    const failed = await t.http.get('/api/audit?success=false&userId=admin').set('Cookie', admin.cookie);
    expect(failed.body.auditLogs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'suspend',
          resourceType: 'license',
          resourceId: missing,
          success: false,
          changes: { before: {}, after: { status: 404, error: 'License not found' } },
        }),
        expect.objectContaining({ action: 'create', resourceType: 'product', success: false }),
      ]),
    );
  });
});
