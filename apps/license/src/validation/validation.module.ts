import type { RequestHandler } from 'express';
import type pg from 'pg';
import { batchConcurrency } from '@app/db';
import type { Guard, Logger } from '@app/http';
import type { FeatureModule } from '@app/http';
import type { EventBus } from '../events/event-bus.js';
import type { ResponseSigner } from '../signing/signing.js';
import { createValidationRepository } from './validation.repository.js';
import { signedSender } from '../signing/signed-answers.js';
import { validationRoutes } from './validation.routes.js';
import { createValidationService } from './validation.service.js';

/**
 * A validator of its own for another feature that validates as validate does (the upgrade
 * question of `distribution/`): the same batched statement, the same refusals and usage records.
 */
export function licenseValidator(needs: { pool: pg.Pool; now: () => Date; events: EventBus }) {
  const repository = createValidationRepository({
    db: needs.pool,
    now: needs.now,
    concurrency: batchConcurrency(needs.pool),
  });
  return createValidationService({ repository, events: needs.events });
}

/**
 * License validation and its public key. Applications call validation many times a second,
 * without a browser session: it runs before the session, helmet and request-log middleware
 * (its usage records are its log).
 */
export function validationModule(needs: {
  pool: pg.Pool;
  now: () => Date;
  events: EventBus;
  signer: ResponseSigner;
  logger: Logger;
  public: Guard;
  panicGuard: RequestHandler;
  limiter: RequestHandler;
}): FeatureModule {
  const repository = createValidationRepository({
    db: needs.pool,
    now: needs.now,
    concurrency: batchConcurrency(needs.pool),
  });
  const validate = createValidationService({ repository, events: needs.events });
  const signed = signedSender({ signer: needs.signer, now: needs.now, hwidField: 'hwid', logger: needs.logger });
  return {
    name: 'validation',
    stage: 'hotPath',
    routes: validationRoutes({
      validate,
      signer: needs.signer,
      signed,
      public: needs.public,
      panicGuard: needs.panicGuard,
      limiter: needs.limiter,
    }),
    errorHandlers: {
      path: '/api/license/validate',
      handlers: signed.errors,
    },
  };
}
