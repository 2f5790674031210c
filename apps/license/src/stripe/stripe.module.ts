import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import type { Notifier } from '@app/events';
import type { Guard, Logger } from '@app/http';
import type { AutomationEngine } from '../automations/automation-engine.js';
import type { FeatureModule } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import type { createLicensesService } from '../licenses/licenses.service.js';
import { stripeRoutes } from './stripe.routes.js';
import { createStripeService } from './stripe.service.js';

/** The Stripe receiver: before the JSON parser, because Stripe signs the exact bytes it sent. */
export function stripeModule(needs: {
  config: Pick<Config, 'STRIPE_WEBHOOK_SECRET'>;
  pool: pg.Pool;
  now: () => Date;
  events: EventBus;
  licenses: ReturnType<typeof createLicensesService>;
  triggers: Pick<AutomationEngine, 'trigger'>;
  notifier: Pick<Notifier, 'notify'>;
  logger: Logger;
  public: Guard;
  panicGuard: RequestHandler;
}): FeatureModule {
  const service = createStripeService({
    pool: needs.pool,
    now: needs.now,
    webhookSecret: needs.config.STRIPE_WEBHOOK_SECRET,
    bus: needs.events,
    licenses: needs.licenses,
    engine: needs.triggers,
    notifier: needs.notifier,
    logger: needs.logger,
  });
  return {
    name: 'stripe',
    stage: 'rawBody',
    routes: stripeRoutes({ service, public: needs.public, panicGuard: needs.panicGuard }),
  };
}
