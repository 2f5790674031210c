import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { buildTestApp, type TestApp } from '../helpers.js';
import { eventually, startSmtpStandIn, type SmtpStandIn } from './peers.js';

const secret = 'whsec_stripe_test_secret';
const day = 86_400_000;
let t: TestApp;
let smtp: SmtpStandIn;
let sequence = 0;

beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await buildTestApp({
    env: {
      STRIPE_WEBHOOK_SECRET: secret,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      NOTIFY_EMAIL_TO: 'sales@example.com',
      NOTIFY_TRANSACTION: 'email',
      NOTIFY_SECURITY: 'email',
    },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

function checkoutEvent(
  metadata: Record<string, string>,
  overrides: { id?: string; type?: string; session?: Record<string, unknown> } = {},
) {
  sequence += 1;
  return {
    id: overrides.id ?? `evt_test_${Date.now()}_${sequence}`,
    object: 'event',
    type: overrides.type ?? 'checkout.session.completed',
    api_version: '2025-08-27.basil',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `cs_test_${sequence}_${Date.now()}`,
        object: 'checkout.session',
        amount_total: 1999,
        currency: 'eur',
        payment_status: 'paid',
        payment_intent: `pi_${sequence}`,
        customer_details: { email: 'buyer@example.com' },
        metadata,
        ...overrides.session,
      },
    },
  };
}

function post(event: object, options: { secret?: string; header?: string | null; payload?: string } = {}) {
  const payload = options.payload ?? JSON.stringify(event);
  const header =
    options.header === undefined
      ? Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? secret })
      : options.header;
  const request = t.http.post('/api/stripe').set('Content-Type', 'application/json');
  if (header !== null) request.set('Stripe-Signature', header);
  return request.send(payload);
}

async function transactionOf(sessionId: string) {
  const { rows } = await t.database.pool.query(
    'SELECT status, amount, currency, license_id, customer_id, product_id, metadata FROM transactions WHERE external_id = $1',
    [sessionId],
  );
  return rows;
}

async function licenseByKey(key: string) {
  const { rows } = await t.database.pool.query(
    'SELECT id, key, product_id, customer_id, license_type, ip_limit, hwid_limit, credits_total, expires_at, expired_notified_at FROM licenses WHERE key = $1',
    [key],
  );
  return rows[0];
}

describe(`POST /api/stripe (${testDatabaseBackend()})`, () => {
  it('checkout.session.completed with a correctly signed payload records a completed transaction and creates the license of the metadata', async () => {
    const product = await t.createProduct({ licensePrefix: 'SHOP' });
    const customer = await t.createCustomer();
    const admin = await t.admin();
    const automation = await t.http
      .post('/api/automated-actions')
      .set(admin.headers)
      .send({
        name: 'On payment',
        trigger: { event: 'transaction_completed' },
        actions: [{ type: 'custom', params: { note: 'thank {{licenseKey}}' } }],
      });
    const created: Array<Record<string, unknown>> = [];
    t.context.events.on('LICENSE_CREATED', (data) => {
      created.push(data);
    });

    const event = checkoutEvent({
      productId: product._id,
      customerId: customer._id,
      licenseType: 'consumption',
      durationDays: '30',
      ipLimit: '3',
      credits: '500',
    });
    const res = await post(event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      received: true,
      duplicate: false,
      transaction: { _id: expect.any(String), status: 'completed' },
      licenseKey: expect.stringMatching(/^SHOP-/),
    });
    const license = await licenseByKey(res.body.licenseKey);
    expect(license).toMatchObject({
      product_id: product._id,
      customer_id: customer._id,
      license_type: 'consumption',
      ip_limit: 3,
      credits_total: 500,
    });
    expect(Math.abs(new Date(license.expires_at).getTime() - (Date.now() + 30 * day))).toBeLessThan(60_000);
    expect(await transactionOf(event.data.object.id)).toEqual([
      expect.objectContaining({
        status: 'completed',
        amount: 19.99,
        currency: 'eur',
        license_id: license.id,
        customer_id: customer._id,
        product_id: product._id,
      }),
    ]);
    expect(created.map((data) => data.licenseKey)).toEqual([license.key]);

    await eventually(
      async () =>
        (await t.http.get(`/api/automated-actions/${automation.body.action._id}`).set(admin.headers)).body.action
          .executionCount === 1,
    );
    const runs = await t.database.pool.query(
      'SELECT results, context FROM automated_action_runs WHERE action_id = $1',
      [automation.body.action._id],
    );
    expect(runs.rows[0].context).toMatchObject({ licenseKey: license.key, amount: 19.99, currency: 'eur' });
    expect(runs.rows[0].results[0].message).toContain(`thank ${license.key}`);
    // NOTIFY_TRANSACTION=email
    const mail = await eventually(() => smtp.mails.find((candidate) => candidate.raw.includes(license.key)));
    expect(mail.to).toEqual(['sales@example.com']);
    expect(mail.raw).toContain('Transaction completed: 19.99 EUR');
  });

  it('answers 503 when STRIPE_WEBHOOK_SECRET is not configured', async () => {
    const unconfigured = await buildTestApp({ database: t.database });
    try {
      const res = await unconfigured.http
        .post('/api/stripe')
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', 't=1,v1=x')
        .send('{}');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Stripe webhooks are not configured' });
    } finally {
      await unconfigured.close();
    }
  });

  it('processes a duplicate event id once, even when the copies arrive at the same time', async () => {
    const product = await t.createProduct({ licensePrefix: 'DUP' });
    const event = checkoutEvent({ productId: product._id });
    const first = await post(event);
    expect(first.body.duplicate).toBe(false);
    const again = await post(event);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, received: true, duplicate: true });

    const burst = checkoutEvent({ productId: product._id });
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(burst)));
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(answers.filter((res) => res.body.duplicate === false)).toHaveLength(1);
    const { rows } = await t.database.pool.query('SELECT count(*)::int AS n FROM licenses WHERE product_id = $1', [
      product._id,
    ]);
    expect(rows[0].n).toBe(2);
    expect(await transactionOf(burst.data.object.id)).toHaveLength(1);
  });

  it.each([
    { name: 'a signature made with another secret', options: { secret: 'whsec_other' } },
    { name: 'no Stripe-Signature header', options: { header: null } },
    { name: 'a malformed header', options: { header: 't=1,v1=abc' } },
  ])('answers 400 for $name and records nothing', async ({ options }) => {
    const product = await t.createProduct({ licensePrefix: 'BAD' });
    const event = checkoutEvent({ productId: product._id });
    const res = await post(event, options);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Invalid Stripe signature' });
    expect(await transactionOf(event.data.object.id)).toEqual([]);
  });

  it('reports rejected signatures as a security notification (NOTIFY_SECURITY)', async () => {
    await post(checkoutEvent({}), { secret: 'whsec_forged' });
    const mail = await eventually(() =>
      smtp.mails.find((candidate) => candidate.raw.includes('invalid Stripe signature')),
    );
    expect(mail.to).toEqual(['sales@example.com']);
    expect(mail.raw).toContain('127.0.0.1');
  });

  it('answers 400 for a payload changed after signing', async () => {
    const product = await t.createProduct({ licensePrefix: 'TAMP' });
    const event = checkoutEvent({ productId: product._id });
    const payload = JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    const res = await post(event, { header, payload: payload.replace('1999', '1') });
    expect(res.status).toBe(400);
    expect(await transactionOf(event.data.object.id)).toEqual([]);
  });

  it('extends the license named by metadata.licenseKey from its expiry, or from now when it has expired', async () => {
    const running = await t.createLicense({ expiresAt: new Date(Date.now() + 10 * day) });
    const res = await post(checkoutEvent({ licenseKey: running.key, durationDays: '30' }));
    expect(res.body).toMatchObject({ duplicate: false, transaction: { status: 'completed' }, licenseKey: running.key });
    const extended = await licenseByKey(running.key);
    expect(Math.abs(new Date(extended.expires_at).getTime() - (Date.now() + 40 * day))).toBeLessThan(60_000);

    const expired = await t.createLicense({ expiresAt: new Date(Date.now() - 5 * day) });
    await t.database.pool.query('UPDATE licenses SET expired_notified_at = now() WHERE id = $1', [expired._id]);
    await post(checkoutEvent({ licenseKey: expired.key, durationDays: '7' }));
    const renewed = await licenseByKey(expired.key);
    expect(Math.abs(new Date(renewed.expires_at).getTime() - (Date.now() + 7 * day))).toBeLessThan(60_000);
    expect(renewed.expired_notified_at).toBeNull();
    expect((await t.http.post('/api/license/validate').send({ key: expired.key, ip: '10.9.0.1' })).status).toBe(200);
  });

  it('records an unpaid session as processing and completes it on async_payment_succeeded; failures and expiries get their status', async () => {
    const product = await t.createProduct({ licensePrefix: 'ASYNC' });
    const pending = checkoutEvent({ productId: product._id }, { session: { payment_status: 'unpaid' } });
    const first = await post(pending);
    expect(first.body.transaction.status).toBe('processing');
    expect(first.body.licenseKey).toBeUndefined();
    const paid = checkoutEvent(
      { productId: product._id },
      { type: 'checkout.session.async_payment_succeeded', session: { id: pending.data.object.id } },
    );
    const second = await post(paid);
    expect(second.body.transaction.status).toBe('completed');
    expect(await transactionOf(pending.data.object.id)).toEqual([
      expect.objectContaining({ status: 'completed', product_id: product._id }),
    ]);

    const failing = checkoutEvent({ productId: product._id }, { session: { payment_status: 'unpaid' } });
    await post(failing);
    await post(
      checkoutEvent({}, { type: 'checkout.session.async_payment_failed', session: { id: failing.data.object.id } }),
    );
    expect((await transactionOf(failing.data.object.id))[0].status).toBe('failed');
  });

  it('marks the transaction refunded when its charge is refunded', async () => {
    const product = await t.createProduct({ licensePrefix: 'REF' });
    const paid = checkoutEvent({ productId: product._id }, { session: { payment_intent: 'pi_refund_me' } });
    await post(paid);
    const refund = {
      id: `evt_refund_${Date.now()}`,
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: 'ch_1', object: 'charge', payment_intent: 'pi_refund_me' } },
    };
    expect((await post(refund)).status).toBe(200);
    expect((await transactionOf(paid.data.object.id))[0].status).toBe('refunded');
  });

  it('keeps a payment with unusable metadata as a failed transaction (200, so Stripe does not retry forever)', async () => {
    const event = checkoutEvent({ productId: 'not-a-uuid' });
    const res = await post(event);
    expect(res.status).toBe(200);
    expect(res.body.transaction.status).toBe('failed');
    const missing = checkoutEvent({ licenseKey: 'NOPE-unknown' });
    expect((await post(missing)).body.transaction.status).toBe('failed');
    expect((await transactionOf(missing.data.object.id))[0].metadata).toMatchObject({ error: 'License not found' });
  });

  it('creates and extends licenses through the licenses service: audited as `stripe`, refused for an inactive product', async () => {
    const product = await t.createProduct({ licensePrefix: 'AUD' });
    const bought = await post(
      checkoutEvent({ productId: product._id, customerId: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(bought.body.transaction.status).toBe('completed');
    // A customer id that names nobody is left out, so the paid order still gets its license.
    const license = await licenseByKey(bought.body.licenseKey);
    expect(license.customer_id).toBeNull();
    await post(checkoutEvent({ licenseKey: license.key, durationDays: '10' }));
    const audit = await t.database.pool.query(
      "SELECT user_id, action, ip, user_agent, changes FROM audit_logs WHERE resource_type = 'license' AND resource_id = $1 ORDER BY created_at, id",
      [license.id],
    );
    expect(audit.rows.map((row) => [row.user_id, row.action, row.ip, row.user_agent])).toEqual([
      ['stripe', 'create', '127.0.0.1', 'stripe-webhook'],
      ['stripe', 'update', '127.0.0.1', 'stripe-webhook'],
    ]);
    expect(
      new Date(audit.rows[1].changes.after.expiresAt).getTime() -
        new Date(audit.rows[1].changes.before.expiresAt).getTime(),
    ).toBe(10 * day);

    const retired = await t.createProduct({ licensePrefix: 'OLD', isActive: false });
    const refused = checkoutEvent({ productId: retired._id });
    expect((await post(refused)).body.transaction.status).toBe('failed');
    expect((await transactionOf(refused.data.object.id))[0].metadata).toMatchObject({
      error: 'Product is not active',
      productId: retired._id,
    });
    const { rows } = await t.database.pool.query('SELECT count(*)::int AS n FROM licenses WHERE product_id = $1', [
      retired._id,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('acknowledges event types it does not handle', async () => {
    const res = await post({
      id: `evt_other_${Date.now()}`,
      object: 'event',
      type: 'customer.created',
      data: { object: { id: 'cus_1', object: 'customer' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, received: true, duplicate: false });
  });

  it('answers 503 in panic mode', async () => {
    const security = t.settings.get().security;
    await t.settings.update({ security: { ...security, panicMode: true } });
    try {
      const res = await post(checkoutEvent({ productId: (await t.createProduct())._id }));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: 'Service unavailable: panic mode is active' });
    } finally {
      await t.settings.update({ security: { ...security, panicMode: false } });
    }
  });
});
