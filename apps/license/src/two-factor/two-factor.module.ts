import type pg from 'pg';
import type { Config } from '@app/config';
import type { Notifier } from '@app/events';
import type { Guard } from '@app/http';
import type { FeatureModule } from '@app/http';
import { twoFactorRoutes } from './two-factor.routes.js';
import { createTwoFactorService, type TwoFactorService } from './two-factor.service.js';

/** The two-factor service from the configuration (the admin guard's gate reads it too). */
export function twoFactorServiceFrom(options: {
  config: Config;
  pool: pg.Pool;
  now: () => Date;
  sessionSecret: string;
}): TwoFactorService {
  const { config } = options;
  return createTwoFactorService({
    pool: options.pool,
    now: options.now,
    sessionSecret: options.sessionSecret,
    issuer: config.TWO_FACTOR_ISSUER,
    required: config.TWO_FACTOR_REQUIRED,
    disablePassword: config.TWO_FACTOR_DISABLE_PASSWORD,
    maxAttempts: config.TWO_FACTOR_MAX_ATTEMPTS,
    windowMs: config.TWO_FACTOR_WINDOW_MINUTES * 60_000,
  });
}

/** The two-factor routes, guarded WITHOUT the gate: they are the way through it. */
export function twoFactorModule(needs: {
  service: TwoFactorService;
  adminWithoutTwoFactor: Guard;
  notifier: Pick<Notifier, 'notify'>;
}): FeatureModule {
  const { service, notifier } = needs;
  return {
    name: 'two-factor',
    routes: twoFactorRoutes(needs),
    /** Failed codes and lock-outs become `security` notifications (NOTIFY_SECURITY), at most one per admin and reason every 10 minutes. */
    eventHandlers() {
      service.onSecurityEvent((event) =>
        notifier.notify(
          'security',
          {
            subject:
              event.reason === 'rate_limited'
                ? `Two-factor locked for admin ${event.userId}: too many wrong codes`
                : `Failed two-factor sign-in of admin ${event.userId}`,
            text: `Admin ${event.userId} from ${event.ip ?? 'an unknown address'}: ${event.reason.replace('_', ' ')}.`,
          },
          { key: `2fa:${event.userId}:${event.reason}`, seconds: 600 },
        ),
      );
    },
  };
}
