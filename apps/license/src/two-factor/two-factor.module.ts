import type { RequestHandler, Router } from 'express';
import type pg from 'pg';
import type { Config } from '@app/config';
import type { Notifier } from '@app/events';
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
    /** Failed codes and lock-outs become `security` notifications (NOTIFY_SECURITY), at most one per admin and reason every 10 minutes. */
    notifyVia(notifier: Pick<Notifier, 'notify'>): void {
      service.onSecurityEvent((event) => notifier.notify('security', {
        subject: event.reason === 'rate_limited'
          ? `Two-factor locked for admin ${event.userId}: too many wrong codes`
          : `Failed two-factor sign-in of admin ${event.userId}`,
        text: `Admin ${event.userId} from ${event.ip ?? 'an unknown address'}: ${event.reason.replace('_', ' ')}.`,
      }, { key: `2fa:${event.userId}:${event.reason}`, seconds: 600 }));
    },
  };
}
