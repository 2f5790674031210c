import type pg from 'pg';
import Stripe from 'stripe';
import { withTransaction, type Queryable } from '@app/db';
import { HttpError, readableIssue, validationDetails, type Logger } from '@app/http';
import type { Notifier } from '@app/events';
import type { EventBus } from '../events/event-bus.js';
import { generateLicenseKey } from '../licenses/license-key.js';
import type { TransactionStatus } from '../transactions/transactions.table.js';
import type { AutomationEngine } from '../automations/automation-engine.js';
import * as repo from './stripe.repository.js';
import { checkoutMetadataSchema } from './stripe.schema.js';

export interface StripeServiceDeps {
  pool: pg.Pool;
  now: () => Date;
  /** STRIPE_WEBHOOK_SECRET; without it the receiver refuses every call. */
  webhookSecret?: string;
  bus: EventBus;
  engine: Pick<AutomationEngine, 'trigger'>;
  notifier: Pick<Notifier, 'notify'>;
  logger: Pick<Logger, 'warn' | 'error'>;
}

type Session = Stripe.Checkout.Session;

interface Outcome {
  transaction?: { id: string; status: TransactionStatus };
  created?: repo.LicenseRow;
  extended?: repo.LicenseRow;
  context?: Record<string, unknown>;
}

const dayMs = 86_400_000;
const amountOf = (session: Session) => (session.amount_total ?? 0) / 100;

export function stripeService(deps: StripeServiceDeps) {
  const { pool, now } = deps;

  /** A paid session: the transaction completed and the license created or extended, in the caller's transaction. */
  async function completeCheckout(client: Queryable, event: Stripe.Event, session: Session): Promise<Outcome> {
    const base = { externalId: session.id, amount: amountOf(session), currency: session.currency ?? 'usd', now: now() };
    const parsed = checkoutMetadataSchema.safeParse(session.metadata ?? {}, { error: readableIssue });
    if (!parsed.success) {
      // Retrying cannot fix bad metadata: the payment is kept as a failed transaction for an admin to settle.
      const transaction = await repo.upsertTransaction(client, { ...base, status: 'failed', metadata: { stripeEventId: event.id, error: 'Invalid checkout metadata', details: validationDetails(parsed.error) } });
      return { transaction };
    }
    const meta = parsed.data;
    let created: repo.LicenseRow | undefined;
    let extended: repo.LicenseRow | undefined;
    if (meta.licenseKey) {
      extended = await repo.extendLicense(client, meta.licenseKey, meta.durationDays, meta.credits, now());
      if (!extended) {
        const transaction = await repo.upsertTransaction(client, { ...base, status: 'failed', metadata: { stripeEventId: event.id, error: 'License not found', licenseKey: meta.licenseKey } });
        return { transaction };
      }
    } else {
      const prefix = await repo.findProductPrefix(client, meta.productId!);
      const customerId = meta.customerId && (await repo.customerExists(client, meta.customerId)) ? meta.customerId : undefined;
      if (!prefix) {
        const transaction = await repo.upsertTransaction(client, { ...base, status: 'failed', metadata: { stripeEventId: event.id, error: 'Product not found', productId: meta.productId } });
        return { transaction };
      }
      created = await repo.insertLicense(client, {
        key: generateLicenseKey(prefix), productId: meta.productId!, customerId, licenseType: meta.licenseType,
        expiresAt: new Date(now().getTime() + meta.durationDays * dayMs), ipLimit: meta.ipLimit, hwidLimit: meta.hwidLimit,
        credits: meta.licenseType === 'consumption' ? meta.credits : 0, metadata: { source: 'stripe', checkoutSessionId: session.id }, now: now(),
      });
    }
    const license = (created ?? extended)!;
    const transaction = await repo.upsertTransaction(client, {
      ...base, status: 'completed', customerId: license.customer_id, licenseId: license.id, productId: license.product_id,
      metadata: { stripeEventId: event.id, paymentIntent: session.payment_intent ?? null, customerEmail: session.customer_details?.email ?? null, ...(extended ? { extendedDays: meta.durationDays } : {}) },
    });
    return {
      transaction, created, extended,
      context: {
        transactionId: transaction.id, amount: base.amount, currency: base.currency, licenseId: license.id, licenseKey: license.key,
        productId: license.product_id, customerId: license.customer_id, licenseType: license.license_type,
        expiresAt: license.expires_at?.toISOString() ?? null, stripeEventId: event.id, checkoutSessionId: session.id,
      },
    };
  }

  async function apply(client: Queryable, event: Stripe.Event): Promise<Outcome> {
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = event.data.object;
        // A delayed payment method completes the session unpaid; the license waits for async_payment_succeeded.
        if (session.payment_status === 'unpaid') {
          return { transaction: await repo.upsertTransaction(client, { externalId: session.id, status: 'processing', amount: amountOf(session), currency: session.currency ?? 'usd', metadata: { stripeEventId: event.id }, now: now() }) };
        }
        return completeCheckout(client, event, session);
      }
      case 'checkout.session.async_payment_failed':
        await repo.setTransactionStatus(client, event.data.object.id, 'failed', now());
        return {};
      case 'charge.refunded': {
        const intent = event.data.object.payment_intent;
        const id = typeof intent === 'string' ? intent : intent?.id;
        if (id) await repo.refundByPaymentIntent(client, id, now());
        return {};
      }
      case 'checkout.session.expired':
        await repo.setTransactionStatus(client, event.data.object.id, 'cancelled', now());
        return {};
      default:
        return {};
    }
  }

  return {
    /** Verifies, then processes the event once: the event id is claimed in the same transaction as the work. */
    async receive(rawBody: Buffer, signature: string | undefined, ip?: string) {
      if (!deps.webhookSecret) throw new HttpError(503, 'Stripe webhooks are not configured');
      let event: Stripe.Event;
      try {
        event = Stripe.webhooks.constructEvent(rawBody, signature ?? '', deps.webhookSecret);
      } catch {
        // Someone other than Stripe (or with an old secret) calls the payment receiver: a security event,
        // reported at most once per address every 10 minutes.
        await deps.notifier.notify('security', {
          subject: 'Rejected payment webhook: invalid Stripe signature',
          text: `POST /api/stripe from ${ip ?? 'unknown address'} carried no valid Stripe-Signature.`,
        }, { key: `stripe:${ip ?? 'unknown'}`, seconds: 600 }).catch((error: unknown) => deps.logger.warn({ err: error }, 'security notification failed'));
        throw HttpError.badRequest('Invalid Stripe signature');
      }
      const result = await withTransaction(pool, async (client) => {
        if (!(await repo.claimStripeEvent(client, event.id, event.type))) return { duplicate: true as const };
        return { duplicate: false as const, outcome: await apply(client, event) };
      });
      if (result.duplicate) return { received: true, duplicate: true };
      const { outcome } = result;
      // Side effects after the commit: they announce what is now stored.
      if (outcome.created) {
        await deps.bus.emit('LICENSE_CREATED', {
          licenseId: outcome.created.id, licenseKey: outcome.created.key, productId: outcome.created.product_id,
          customerId: outcome.created.customer_id, licenseType: outcome.created.license_type,
          expiresAt: outcome.created.expires_at?.toISOString() ?? null, source: 'stripe',
        });
      }
      if (outcome.context && outcome.transaction?.status === 'completed') {
        await deps.notifier.notify('transaction', {
          subject: `Transaction completed: ${String(outcome.context.amount)} ${String(outcome.context.currency).toUpperCase()}`,
          text: `License ${String(outcome.context.licenseKey)} ${outcome.created ? 'created' : 'extended'} (Stripe event ${event.id}).`,
        }).catch((error: unknown) => deps.logger.warn({ err: error }, 'transaction notification failed'));
        await deps.engine.trigger('transaction_completed', outcome.context).catch((error: unknown) => deps.logger.error({ err: error }, 'transaction automations failed'));
      }
      return {
        received: true, duplicate: false,
        transaction: outcome.transaction ? { _id: outcome.transaction.id, status: outcome.transaction.status } : undefined,
        licenseKey: (outcome.created ?? outcome.extended)?.key,
      };
    },
  };
}
