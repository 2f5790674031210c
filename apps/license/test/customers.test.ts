import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('customers admin API', () => {
  it('answers 401 Unauthorized without a session', async () => {
    expect((await t.http.get('/api/customers')).status).toBe(401);
    expect((await t.http.post('/api/customers').send({ name: 'x', email: 'x@example.com' })).status).toBe(401);
  });

  it('creates, lists with search and paging, reads, updates and deletes customers', async () => {
    const admin = await t.admin();
    const created = await t.http
      .post('/api/customers')
      .set(admin.headers)
      .send({ name: 'Ada Lovelace', email: 'ada@example.com', userId: 'ada' });
    expect(created.status).toBe(201);
    const customer = created.body.customer;
    expect(customer).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', userId: 'ada' });

    const duplicate = await t.http
      .post('/api/customers')
      .set(admin.headers)
      .send({ name: 'Other', email: 'o@example.com', userId: 'ada' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ success: false, error: 'A customer with this userId already exists' });
    const badEmail = await t.http.post('/api/customers').set(admin.headers).send({ name: 'Other', email: 'nope' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.details).toHaveProperty('email');

    await t.createCustomer({ name: 'Grace Hopper' });
    const search = await t.http.get('/api/customers?search=lovelace').set('Cookie', admin.cookie);
    expect(search.body).toMatchObject({ success: true, count: 1, total: 1 });
    const page = await t.http.get('/api/customers?limit=1').set('Cookie', admin.cookie);
    expect(page.body.count).toBe(1);
    expect(page.body.total).toBeGreaterThanOrEqual(2);

    const one = await t.http.get(`/api/customers/${customer._id}`).set('Cookie', admin.cookie);
    expect(one.body.customer).toMatchObject({ _id: customer._id, licenseCount: 0 });
    const updated = await t.http.put(`/api/customers/${customer._id}`).set(admin.headers).send({ name: 'Ada King' });
    expect(updated.body.customer).toMatchObject({ name: 'Ada King', email: 'ada@example.com' });

    const license = await t.createLicense({ customer: customer._id });
    const removed = await t.http.delete(`/api/customers/${customer._id}`).set(admin.headers);
    expect(removed.body).toEqual({ success: true });
    expect((await t.http.get(`/api/customers/${customer._id}`).set('Cookie', admin.cookie)).status).toBe(404);
    // The license stays valid for the application that uses it.
    expect((await t.http.post('/api/license/validate').send({ key: license.key })).status).toBe(200);
  });

  it('answers 404 Customer not found for an unknown id', async () => {
    const admin = await t.admin();
    const res = await t.http.get('/api/customers/00000000-0000-0000-0000-000000000000').set('Cookie', admin.cookie);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Customer not found' });
  });
});
