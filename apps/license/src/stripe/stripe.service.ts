import type pg from 'pg';
import type Stripe from 'stripe';
import { withTransaction, type Queryable } from '@app/db';
import { isHttpError, readableIssue, validationDetails, type Logger } from '@app/http';
import { appError } from '../common/error-codes.js';
import type { Notifier } from '@app/events';
import type { Actor } from '../common/actor.js';
import type { EventBus } from '../events/event-bus.js';
import type { LicenseJson } from '../licenses/licenses.presenter.js';
import { licenseCreatedEvent, type LicensesService } from '../licenses/licenses.service.js';
import type { CreateLicense } from '../licenses/licenses.schema.js';
import type { TransactionStatus } from '../transactions/transactions.table.js';
import * as transactions from '../transactions/transactions.service.js';
import type { AutomationEngine } from '../automations/automation-engine.js';
import { claimStripeEvent } from './stripe.repository.js';
import { checkoutMetadataSchema, type CheckoutMetadata } from './stripe.schema.js';

export interface StripeServiceDeps {
  pool: pg.Pool;
  now: () => Date;
  /** STRIPE_WEBHOOK_SECRET; without it the receiver refuses every call. */
  webhookSecret?: string;
  bus: EventBus;
  /** Licenses are created and extended through their service: the same rules and audit as an admin's. */
  licenses: Pick<LicensesService, 'createWithin' | 'extendWithin'>;
  engine: Pick<AutomationEngine, 'trigger'>;
  notifier: Pick<Notifier, 'notify'>;
  logger: Pick<Logger, 'warn' | 'error'>;
}

type Session = Stripe.Checkout.Session;

/** Stripe's SDK, loaded at the first payment event: a service without payments need not hold it. */
const loadStripe = async () => (await import('stripe')).default;

interface Outcome {
  transaction?: { id: string; status: TransactionStatus };
  created?: LicenseJson;
  extended?: LicenseJson;
  context?: Record<string, unknown>;
}

/**
 * Who the audit log names for licenses a marketplace event created or extended: `stripe`, with
 * the address the event came from (documented in the README).
 */
export const stripeActor = (ip: string | undefined): Actor => ({
  userId: 'stripe',
  ip: ip ?? null,
  userAgent: 'stripe-webhook',
});

/** Refusals of the license rules that no retry of the event can change: the payment is kept as a failed transaction. */
const settledRefusals = new Set(['LICENSE_NOT_FOUND', 'PRODUCT_NOT_FOUND', 'PRODUCT_NOT_ACTIVE']);

const dayMs = 86_400_000;
const amountOf = (session: Session) => (session.amount_total ?? 0) / 100;

export function createStripeService(deps: StripeServiceDeps) {
  const { pool, now, licenses } = deps;

  /** The license a paid checkout buys; a customer id that names nobody is left out rather than refusing a paid order. */
  async function createLicense(
    client: Queryable,
    actor: Actor,
    meta: CheckoutMetadata,
    session: Session,
  ): Promise<LicenseJson> {
    const input: CreateLicense = {
      product: meta.productId!,
      customer: meta.customerId,
      licenseType: meta.licenseType,
      expiresAt: new Date(now().getTime() + meta.durationDays * dayMs),
      ipLimit: meta.ipLimit,
      hwidLimit: meta.hwidLimit,
      heartbeatSeconds: null,
      credits: meta.licenseType === 'consumption' ? meta.credits : 0,
      active: true,
      autoConvert: false,
      metadata: { source: 'stripe', checkoutSessionId: session.id },
    };
    try {
      return await licenses.createWithin(client, actor, input);
    } catch (error) {
      // Thrown before anything was written, so the transaction is still good for the second try.
      if (isHttpError(error) && error.code === 'CUSTOMER_NOT_FOUND')
        return licenses.createWithin(client, actor, { ...input, customer: undefined });
      throw error;
    }
  }

  /** A paid session: the transaction completed and the license created or extended, in the caller's transaction. */
  async function completeCheckout(
    client: Queryable,
    event: Stripe.Event,
    session: Session,
    actor: Actor,
  ): Promise<Outcome> {
    const base = { externalId: session.id, amount: amountOf(session), currency: session.currency ?? 'usd', now: now() };
    const parsed = checkoutMetadataSchema.safeParse(session.metadata ?? {}, { error: readableIssue });
    if (!parsed.success) {
      // Retrying cannot fix bad metadata: the payment is kept as a failed transaction for an admin to settle.
      const transaction = await transactions.upsertTransaction(client, {
        ...base,
        status: 'failed',
        metadata: {
          stripeEventId: event.id,
          error: 'Invalid checkout metadata',
          details: validationDetails(parsed.error),
        },
      });
      return { transaction };
    }
    const meta = parsed.data;
    let created: LicenseJson | undefined;
    let extended: LicenseJson | undefined;
    try {
      if (meta.licenseKey)
        extended = await licenses.extendWithin(client, actor, meta.licenseKey, {
          days: meta.durationDays,
          credits: meta.credits,
        });
      else created = await createLicense(client, actor, meta, session);
    } catch (error) {
      if (!isHttpError(error) || !error.code || !settledRefusals.has(error.code)) throw error;
      const subject = meta.licenseKey ? { licenseKey: meta.licenseKey } : { productId: meta.productId };
      const transaction = await transactions.upsertTransaction(client, {
        ...base,
        status: 'failed',
        metadata: { stripeEventId: event.id, error: error.message, ...subject },
      });
      return { transaction };
    }
    const license = (created ?? extended)!;
    const customerId = license.customer?._id ?? null;
    const transaction = await transactions.upsertTransaction(client, {
      ...base,
      status: 'completed',
      customerId,
      licenseId: license._id,
      productId: license.product._id,
      metadata: {
        stripeEventId: event.id,
        paymentIntent: session.payment_intent ?? null,
        customerEmail: session.customer_details?.email ?? null,
        ...(extended ? { extendedDays: meta.durationDays } : {}),
      },
    });
    return {
      transaction,
      created,
      extended,
      context: {
        transactionId: transaction.id,
        amount: base.amount,
        currency: base.currency,
        licenseId: license._id,
        licenseKey: license.key,
        productId: license.product._id,
        customerId,
        licenseType: license.licenseType,
        expiresAt: license.expiresAt,
        stripeEventId: event.id,
        checkoutSessionId: session.id,
      },
    };
  }

  async function apply(client: Queryable, event: Stripe.Event, actor: Actor): Promise<Outcome> {
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = event.data.object;
        // A delayed payment method completes the session unpaid; the license waits for async_payment_succeeded.
        if (session.payment_status === 'unpaid') {
          return {
            transaction: await transactions.upsertTransaction(client, {
              externalId: session.id,
              status: 'processing',
              amount: amountOf(session),
              currency: session.currency ?? 'usd',
              metadata: { stripeEventId: event.id },
              now: now(),
            }),
          };
        }
        return completeCheckout(client, event, session, actor);
      }
      case 'checkout.session.async_payment_failed':
        await transactions.setTransactionStatus(client, event.data.object.id, 'failed', now());
        return {};
      case 'charge.refunded': {
        const intent = event.data.object.payment_intent;
        const id = typeof intent === 'string' ? intent : intent?.id;
        if (id) await transactions.refundByPaymentIntent(client, id, now());
        return {};
      }
      case 'checkout.session.expired':
        await transactions.setTransactionStatus(client, event.data.object.id, 'cancelled', now());
        return {};
      default:
        return {};
    }
  }

  return {
    /** Verifies, then processes the event once: the event id is claimed in the same transaction as the work. */
    async receive(rawBody: Buffer, signature: string | undefined, ip?: string) {
      if (!deps.webhookSecret) throw appError('STRIPE_NOT_CONFIGURED');
      let event: Stripe.Event;
      try {
        event = (await loadStripe()).webhooks.constructEvent(rawBody, signature ?? '', deps.webhookSecret);
      } catch {
        // Someone other than Stripe (or with an old secret) calls the payment receiver: a security event,
        // reported at most once per address every 10 minutes.
        await deps.notifier
          .notify(
            'security',
            {
              subject: 'Rejected payment webhook: invalid Stripe signature',
              text: `POST /api/stripe from ${ip ?? 'unknown address'} carried no valid Stripe-Signature.`,
            },
            { key: `stripe:${ip ?? 'unknown'}`, seconds: 600 },
          )
          .catch((error: unknown) => deps.logger.warn({ err: error }, 'security notification failed'));
        throw appError('STRIPE_INVALID_SIGNATURE');
      }
      const result = await withTransaction(pool, async (client) => {
        if (!(await claimStripeEvent(client, event.id, event.type))) return { duplicate: true as const };
        return { duplicate: false as const, outcome: await apply(client, event, stripeActor(ip)) };
      });
      if (result.duplicate) return { received: true, duplicate: true };
      const { outcome } = result;
      // Side effects after the commit: they announce what is now stored.
      if (outcome.created) {
        await deps.bus.emit('LICENSE_CREATED', { ...licenseCreatedEvent(outcome.created), source: 'stripe' });
      }
      if (outcome.context && outcome.transaction?.status === 'completed') {
        await deps.notifier
          .notify('transaction', {
            subject: `Transaction completed: ${String(outcome.context.amount)} ${String(outcome.context.currency).toUpperCase()}`,
            text: `License ${String(outcome.context.licenseKey)} ${outcome.created ? 'created' : 'extended'} (Stripe event ${event.id}).`,
          })
          .catch((error: unknown) => deps.logger.warn({ err: error }, 'transaction notification failed'));
        await deps.engine
          .trigger('transaction_completed', outcome.context)
          .catch((error: unknown) => deps.logger.error({ err: error }, 'transaction automations failed'));
      }
      return {
        received: true,
        duplicate: false,
        transaction: outcome.transaction
          ? { _id: outcome.transaction.id, status: outcome.transaction.status }
          : undefined,
        licenseKey: (outcome.created ?? outcome.extended)?.key,
      };
    },
  };
}
