import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

let t: TestApp;
let admin: Session;
beforeAll(async () => {
  t = await buildTestApp();
  admin = await t.admin();
});
afterAll(async () => {
  await t?.close();
});

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('unique values under concurrency', () => {
  it('when 20 admins create a customer with one userId at once, one gets 201 and 19 get 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        t.http
          .post('/api/customers')
          .set(admin.headers)
          .send({ name: `Racer ${index}`, email: `racer${index}@example.com`, userId: 'racer' }),
      ),
    );
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 201: 1, 409: 19 });
    for (const answer of answers.filter((one) => one.status === 409)) {
      expect(answer.body).toEqual({ success: false, error: 'A customer with this userId already exists' });
    }
    const { rows } = await t.database.pool.query("SELECT count(*) AS n FROM customers WHERE user_id = 'racer'");
    expect(rows[0].n).toBe(1);
  });

  it('when 20 customers are given one userId at once, one update succeeds and 19 get 409', async () => {
    const customers = await Promise.all(Array.from({ length: 20 }, () => t.createCustomer()));
    const answers = await Promise.all(
      customers.map((customer) =>
        t.http.put(`/api/customers/${customer._id}`).set(admin.headers).send({ userId: 'moved' }),
      ),
    );
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 200: 1, 409: 19 });
    expect(answers.find((answer) => answer.status === 409)!.body.error).toBe(
      'A customer with this userId already exists',
    );
  });

  it('refuses members that repeat an email (in any case) with 400, not a failed insert', async () => {
    const product = await t.createProduct();
    const answer = await t.http
      .post('/api/licenses')
      .set(admin.headers)
      .send({
        product: product._id,
        members: [{ email: 'Ann@example.com' }, { email: 'ann@example.com', role: 'admin' }],
      });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      error: 'Validation failed',
      details: { members: 'Each email may appear only once' },
    });
  });
});
