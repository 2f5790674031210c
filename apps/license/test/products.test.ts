import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('products API', () => {
  it('answers 401 Unauthorized without a session', async () => {
    const res = await t.http.get('/api/products');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Unauthorized' });
    expect((await t.http.get('/api/products/00000000-0000-0000-0000-000000000000')).status).toBe(401);
  });

  it('answers 403 to a signed-in user who is not a registered admin', async () => {
    const session = await t.signIn('somebody');
    const res = await t.http.get('/api/products').set('Cookie', session.cookie);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: 'Forbidden' });
  });

  it('creates, lists with counts only when asked, filters active ones, reads, updates and deletes', async () => {
    const admin = await t.admin();
    const created = await t.http
      .post('/api/products')
      .set(admin.headers)
      .send({ name: 'Editor Pro', description: 'The editor', licensePrefix: 'EDIT' });
    expect(created.status).toBe(201);
    const product = created.body.product;
    expect(product).toMatchObject({
      name: 'Editor Pro',
      description: 'The editor',
      isActive: true,
      licensePrefix: 'EDIT',
    });
    expect(typeof product._id).toBe('string');
    expect(Date.parse(product.createdAt)).not.toBeNaN();
    expect(product).not.toHaveProperty('licenseCount');

    const inactive = await t.createProduct({ name: 'Old', isActive: false });
    await t.createLicense({ product: product._id });
    await t.createLicense({ product: product._id });
    const suspended = await t.createLicense({ product: product._id });
    await t.context.services.licenses.suspend({ userId: 'x', ip: null, userAgent: null }, suspended._id, 'test');

    const plain = await t.http.get('/api/products').set('Cookie', admin.cookie);
    expect(plain.status).toBe(200);
    expect(plain.body.success).toBe(true);
    expect(plain.body.count).toBe(plain.body.products.length);
    for (const item of plain.body.products) {
      expect(item).not.toHaveProperty('licenseCount');
      expect(item).not.toHaveProperty('activeLicenseCount');
    }

    const counted = await t.http.get('/api/products?includeCounts=true').set('Cookie', admin.cookie);
    const editor = counted.body.products.find((item: { _id: string }) => item._id === product._id);
    expect(editor).toMatchObject({ licenseCount: 3, activeLicenseCount: 2 });

    const active = await t.http.get('/api/products?activeOnly=true').set('Cookie', admin.cookie);
    expect(active.body.products.map((item: { _id: string }) => item._id)).not.toContain(inactive._id);
    expect(active.body.products.map((item: { _id: string }) => item._id)).toContain(product._id);
    const all = await t.http.get('/api/products?activeOnly=false').set('Cookie', admin.cookie);
    expect(all.body.products.map((item: { _id: string }) => item._id)).toContain(inactive._id);

    const one = await t.http.get(`/api/products/${product._id}`).set('Cookie', admin.cookie);
    expect(one.status).toBe(200);
    expect(one.body.product).not.toHaveProperty('licenseCount');
    const oneCounted = await t.http.get(`/api/products/${product._id}?includeCounts=true`).set('Cookie', admin.cookie);
    expect(oneCounted.body.product).toMatchObject({ licenseCount: 3, activeLicenseCount: 2 });

    const updated = await t.http
      .put(`/api/products/${product._id}`)
      .set(admin.headers)
      .send({ description: 'New text', isActive: false });
    expect(updated.status).toBe(200);
    expect(updated.body.product).toMatchObject({ description: 'New text', isActive: false, name: 'Editor Pro' });

    const blocked = await t.http.delete(`/api/products/${product._id}`).set(admin.headers);
    expect(blocked.status).toBe(400);
    const removed = await t.http.delete(`/api/products/${inactive._id}`).set(admin.headers);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
  });

  it('changes only the fields an update names, and derives a prefix from the name when none is given', async () => {
    const admin = await t.admin();
    const created = await t.http
      .post('/api/products')
      .set(admin.headers)
      .send({ name: 'Photo Lab 2', description: 'Keep me', isActive: false });
    expect(created.status).toBe(201);
    expect(created.body.product).toMatchObject({ licensePrefix: 'PHOTOLAB', isActive: false });
    const updated = await t.http
      .put(`/api/products/${created.body.product._id}`)
      .set(admin.headers)
      .send({ name: 'Photo Lab 3' });
    expect(updated.body.product).toMatchObject({
      name: 'Photo Lab 3',
      description: 'Keep me',
      isActive: false,
      licensePrefix: 'PHOTOLAB',
    });
    const license = await t.http.post('/api/licenses').set(admin.headers).send({ product: created.body.product._id });
    expect(license.status).toBe(400);
    expect(license.body.error).toBe('Product is not active');
  });

  it('answers 404 Product not found for an unknown id', async () => {
    const admin = await t.admin();
    for (const id of ['00000000-0000-0000-0000-000000000000', 'not-an-id']) {
      const res = await t.http.get(`/api/products/${id}`).set('Cookie', admin.cookie);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Product not found' });
    }
  });

  it('rejects bad input with Validation failed and details, and writes without a CSRF token with 403', async () => {
    const admin = await t.admin();
    const bad = await t.http.post('/api/products').set(admin.headers).send({ name: '', licensePrefix: 'no spaces' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Validation failed');
    expect(Object.keys(bad.body.details)).toEqual(expect.arrayContaining(['name', 'licensePrefix']));
    const noCsrf = await t.http
      .post('/api/products')
      .set('Cookie', admin.cookie)
      .send({ name: 'X', licensePrefix: 'X' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual({ success: false, error: 'Invalid CSRF token' });
    const query = await t.http.get('/api/products?includeCounts=maybe').set('Cookie', admin.cookie);
    expect(query.status).toBe(400);
  });

  it('records each change in the audit log with before and after', async () => {
    const admin = await t.admin();
    const created = await t.http
      .post('/api/products')
      .set(admin.headers)
      .send({ name: 'Audited', licensePrefix: 'AUD' });
    await t.http.put(`/api/products/${created.body.product._id}`).set(admin.headers).send({ name: 'Audited 2' });
    const logs = await t.http
      .get(`/api/audit?resourceType=product&resourceId=${created.body.product._id}`)
      .set('Cookie', admin.cookie);
    expect(logs.status).toBe(200);
    expect(logs.body.auditLogs.map((entry: { action: string }) => entry.action)).toEqual(['update', 'create']);
    const update = logs.body.auditLogs[0];
    expect(update).toMatchObject({ userId: 'admin', resourceType: 'product', success: true });
    expect(update.changes.before.name).toBe('Audited');
    expect(update.changes.after.name).toBe('Audited 2');
    expect(typeof update.ip).toBe('string');
  });
});
