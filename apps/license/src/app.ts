import express, { type Express, type RequestHandler, type Router } from 'express';
import type pg from 'pg';
import { createAuth, type Auth, type OAuthSettings, type SessionUser } from '@app/auth';
import type { Config } from '@app/config';
import type { Database } from '@app/db';
import type { JobQueue, WebhookDispatcherOptions } from '@app/events';
import { apiNotFound, commonMiddleware, createErrorHandler, healthRoutes, type Logger } from '@app/http';
import type { Redis } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';
import './common/request.js';
import { recordAudit } from './audit/audit.repository.js';
import { auditRoutes } from './audit/audit.routes.js';
import { auditFailedAdminWrites } from './audit/audit-failures.js';
import { adminTokenRoutes } from './admins/admins.routes.js';
import { ensureAdmins, findAdminByUserId, updateAdminUsername } from './admins/admins.repository.js';
import { createJwtService, type JwtService } from './admins/jwt.js';
import { requireAdmin, type TwoFactorGate } from './admins/require-admin.js';
import { customerPortalRoutes } from './customer-portal/customer-portal.routes.js';
import { customerPortalService } from './customer-portal/customer-portal.service.js';
import { customerRoutes } from './customers/customers.routes.js';
import { customersService } from './customers/customers.service.js';
import { createEventBus, type EventBus } from './events/event-bus.js';
import { licenseRoutes } from './licenses/licenses.routes.js';
import { licensesService } from './licenses/licenses.service.js';
import { applyPanicModeFromEnvironment, createPanicGuard } from './panic/panic.js';
import { productRoutes } from './products/products.routes.js';
import { productsService } from './products/products.service.js';
import { createRateLimits } from './rate-limits/rate-limits.js';
import { runtimeConfigRoutes } from './runtime-config/runtime-config.routes.js';
import type { LicenseSettings } from './runtime-config/runtime-config.schema.js';
import { loadResponseSigner, type ResponseSigner } from './validation/signing.js';
import { validationRoutes } from './validation/validation.routes.js';
import { createValidationRepository } from './validation/validation.repository.js';
import { validationService } from './validation/validation.service.js';
import { setupTwoFactor } from './two-factor/two-factor.module.js';
import { setupExports } from './exports/exports.module.js';
import { setupOperations } from './automations/operations.module.js';
import { dashboardRoutes, pageNotFound } from './dashboard/dashboard.routes.js';

/** What the app is built from. Side effects come in here so tests can swap them. */
export interface AppDeps {
  config: Config;
  database: Database;
  logger: Logger;
  /** Runtime settings (namespace `license`): panic mode and the public rate limit. */
  settings: SettingsStore<LicenseSettings>;
  /** The identity provider; without one, sign-in answers 503 naming what to configure. */
  oauth: OAuthSettings | undefined;
  /** Base URL people and the identity provider reach this service at. */
  publicUrl: string;
  now?: () => Date;
  events?: EventBus;
  jobs?: JobQueue;
  redis?: Redis;
  /** Webhook delivery's side effects and pace: DNS, HTTP out, the retry schedule (tests compress it), polling. */
  webhookDelivery?: WebhookDeliveryDeps;
}

export type WebhookDeliveryDeps = Partial<Pick<WebhookDispatcherOptions, 'lookup' | 'transport' | 'schedule' | 'pollIntervalMs'>>;

/** Everything a feature needs to build its router, handed to the feature routers below. */
export interface AppContext {
  config: Config;
  database: Database;
  pool: pg.Pool;
  logger: Logger;
  settings: SettingsStore<LicenseSettings>;
  now: () => Date;
  events: EventBus;
  jobs?: JobQueue;
  redis?: Redis;
  webhookDelivery?: WebhookDeliveryDeps;
  auth: Auth;
  jwt: JwtService;
  signer: ResponseSigner;
  /** Admin guard: session (with the two-factor gate) or JWT bearer. */
  requireAdmin: RequestHandler;
  /** 503 while panic mode is on: mount in front of every public API. */
  panicGuard: RequestHandler;
  services: {
    products: ReturnType<typeof productsService>;
    customers: ReturnType<typeof customersService>;
    licenses: ReturnType<typeof licensesService>;
  };
}

export interface LicenseApp {
  app: Express;
  context: AppContext;
  /** Stops timers the app owns (not the database, queue or settings store: the caller's). */
  close(): Promise<void>;
}

/** Express's `trust proxy` from TRUST_PROXY (as commonMiddleware reads it). */
function trustProxyValue(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}

export async function createApp(deps: AppDeps): Promise<LicenseApp> {
  const { config, database, logger, settings } = deps;
  const pool = database.pool;
  const now = deps.now ?? (() => new Date());
  const events = deps.events ?? createEventBus(logger);

  await ensureAdmins(pool, config.ADMIN_IDS);
  await applyPanicModeFromEnvironment(settings, config.PANIC_MODE);
  const signer = await loadResponseSigner(pool);
  const jwt = createJwtService({
    secret: config.JWT_SECRET, publicKey: config.JWT_PUBLIC_KEY, privateKey: config.JWT_PRIVATE_KEY, ttlSeconds: config.JWT_TTL_SECONDS,
  });

  const onAdminSession = (action: 'login' | 'logout') => async (user: SessionUser, req: express.Request) => {
    if (!(await findAdminByUserId(pool, user.id))) return;
    if (action === 'login') await updateAdminUsername(pool, user.id, user.username);
    await recordAudit(pool, { userId: user.id, ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null },
      { action, resourceType: 'admin', resourceId: user.id });
  };
  const auth = createAuth({
    pool,
    sessionSecret: config.SESSION_SECRET ?? 'development-only-license-session-secret',
    sessionTtlMs: config.SESSION_TTL_HOURS * 3_600_000,
    secureCookies: config.NODE_ENV === 'production' || deps.publicUrl.startsWith('https:'),
    cookieName: 'license.sid',
    publicUrl: deps.publicUrl,
    oauth: deps.oauth,
    onSignIn: onAdminSession('login'),
    onSignOut: onAdminSession('logout'),
  });

  // ---- issue 5: two-factor. Set this to the two-factor gate (throws 403 until the admin verifies).
  const twoFactor = setupTwoFactor({
    config, pool, now, sessionSecret: config.SESSION_SECRET ?? 'development-only-license-session-secret',
  });
  const twoFactorGate: TwoFactorGate | undefined = twoFactor.gate;

  const panicGuard = createPanicGuard(settings);
  const adminGuard = requireAdmin({ pool, jwt, twoFactorGate });
  const rateLimits = createRateLimits({ config, settings, jwt, redis: deps.redis });

  const services = {
    products: productsService({ pool, now }),
    customers: customersService({ pool }),
    licenses: licensesService({ pool, events, now }),
  };
  const context: AppContext = {
    config, database, pool, logger, settings, now, events, jobs: deps.jobs, redis: deps.redis, webhookDelivery: deps.webhookDelivery,
    auth, jwt, signer, requireAdmin: adminGuard, panicGuard, services,
  };

  // ---- issue 5 routers that need the raw request body (the marketplace receiver, POST /api/stripe):
  // mounted before the JSON parser; put `context.panicGuard` in front of the receiver.
  // Webhooks, notifications, automated actions, the Stripe receiver and the scheduled scans.
  const operations = await setupOperations(context);
  twoFactor.notifyVia(operations.notifier);
  const rawBodyRouters: Router[] = [...operations.rawBodyRouters];

  // ---- issue 5 routers (audit, exports, two-factor, automated actions, ...): mounted after the
  // session and CSRF middleware; guard admin routes with `context.requireAdmin`.
  const featureRouters: Router[] = [
    auditRoutes({ pool, requireAdmin: adminGuard }),
    // The two-factor routes are the way through the gate, so they use the guard without it.
    twoFactor.routes(requireAdmin({ pool, jwt })),
    setupExports({ config, pool, now, requireAdmin: adminGuard }),
    ...operations.routers,
  ];

  const app = express();
  app.set('etag', false);
  // Set here as well as in commonMiddleware: the routers mounted before it read req.ip too.
  app.set('trust proxy', trustProxyValue(config.TRUST_PROXY));
  app.use(healthRoutes(pool));
  for (const router of rawBodyRouters) app.use(router);
  // Applications call validation many times a second, without a browser session: it runs
  // before the session, helmet and request-log middleware (its usage records are its log), so
  // the hot path does nothing but parse, validate in one statement, sign and answer.
  app.use(validationRoutes({
    validate: validationService({ repository: createValidationRepository({ db: pool, now }), events }), signer, panicGuard, limiter: rateLimits.publicLimit, logger,
  }));
  commonMiddleware(app, {
    logger, bodyLimit: '1mb', trustProxy: config.TRUST_PROXY,
    // Programs with a bearer token have no session user: the admin the token names is the user.
    userId: (req) => req.user?.id ?? req.admin?.userId,
  });

  app.use(...auth.session);
  app.use(auth.routes);
  // CSRF protects what a session is allowed to do: a request without a signed-in user carries
  // no authority (its guard answers 401 Unauthorized), so only signed-in sessions are checked.
  app.use((req, res, next) => (req.user ? auth.csrf(req, res, next) : next()));
  // Signed-in people count per user from here on (the public routes above count per IP).
  app.use(rateLimits.signedInLimit);
  app.use(adminTokenRoutes({ requireAdmin: adminGuard, jwt, now }));
  app.use(runtimeConfigRoutes({ pool, settings, requireAdmin: adminGuard, effectiveRateLimit: rateLimits.effectivePublicLimit }));
  app.use(productRoutes({ service: services.products, requireAdmin: adminGuard }));
  app.use(customerRoutes({ service: services.customers, requireAdmin: adminGuard }));
  app.use(licenseRoutes({ service: services.licenses, requireAdmin: adminGuard }));
  app.use(customerPortalRoutes({ service: customerPortalService({ pool, now }), pool, panicGuard }));
  for (const router of featureRouters) app.use(router);
  // The web page at `/` (after the session; no panic guard: admins must reach it in panic mode).
  app.use(dashboardRoutes(context));

  app.use(apiNotFound);
  app.use(pageNotFound);
  app.use(auditFailedAdminWrites(pool, logger));
  app.use(createErrorHandler({ style: 'license', logger }));

  return {
    app,
    context,
    async close() {
      rateLimits.close();
      await operations.close();
      await auth.close();
    },
  };
}
