import type { RequestHandler, Router } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import { createTwoFactorGate } from './two-factor.gate.js';
import { twoFactorRoutes } from './two-factor.routes.js';
import { createTwoFactorService } from './two-factor.service.js';

/** Wires two-factor from the configuration: the service, the requireAdmin gate and the router. */
export function setupTwoFactor(options: { config: Config; pool: pg.Pool; now: () => Date; sessionSecret: string }) {
  const { config } = options;
  const service = createTwoFactorService({
    pool: options.pool,
    now: options.now,
    sessionSecret: options.sessionSecret,
    issuer: config.TWO_FACTOR_ISSUER,
    required: config.TWO_FACTOR_REQUIRED,
    disablePassword: config.TWO_FACTOR_DISABLE_PASSWORD,
    maxAttempts: config.TWO_FACTOR_MAX_ATTEMPTS,
    windowMs: config.TWO_FACTOR_WINDOW_MINUTES * 60_000,
  });
  return {
    service,
    gate: createTwoFactorGate(service),
    /** `requireAdmin` must be the guard WITHOUT the gate: these routes are the way through it. */
    routes: (requireAdmin: RequestHandler): Router => twoFactorRoutes({ service, requireAdmin }),
  };
}
