import express, { type Express, type Request } from 'express';
import { createAuth, type OAuthSettings, type SessionUser } from '@app/auth';
import type { Config } from '@app/config';
import type { Database } from '@app/db';
import type { JobQueue, OutgoingLookup } from '@app/events';
import {
  apiNotFound,
  backLinkOf,
  closeModules,
  commonMiddleware,
  createErrorHandler,
  wantsHtmlErrorPage,
  createOpenApiDocument,
  healthRouteDeclarations,
  mountRoutes,
  mountStage,
  openApiRoutes,
  readYourWrites,
  trustsAProxy,
  type FeatureModule,
  type Logger,
  type MountOptions,
} from '@app/http';
import type { Redis } from '@app/rate-limit';
import type { SettingsStore } from '@app/settings';
import type { ObjectStore } from '@app/storage';
import { createViews, languages, useViews } from '@app/ui';
import './common/request.js';
import { createGuards, securitySchemes } from './access/guards.js';
import { sessionTableName } from './access/session.table.js';
import { adminLicensesModule } from './admin-licenses/admin-licenses.module.js';
import { adminSettingsModule } from './admin-settings/admin-settings.module.js';
import { analyticsModule } from './analytics/analytics.module.js';
import type { AnalyticsService } from './analytics/analytics.service.js';
import { createAdminTokenService } from './admins/admin-token.service.js';
import { adminTokenModule } from './admins/admins.module.js';
import { createAdminsService } from './admins/admins.service.js';
import { createJwtService } from './admins/jwt.js';
import { auditFailedAdminWrites, recordFailedAdminWrite } from './audit/audit-failures.js';
import { auditModule } from './audit/audit.module.js';
import { createAuditService } from './audit/audit.service.js';
import { automationsModule } from './automations/automations.module.js';
import { distributionModules, objectStoreOf } from './distribution/distribution.module.js';
import type { ReleasesService } from './distribution/releases.service.js';
import { customerPortalModule } from './customer-portal/customer-portal.module.js';
import { customersModule } from './customers/customers.module.js';
import { createCustomersService } from './customers/customers.service.js';
import { dashboardModule } from './dashboard/dashboard.module.js';
import { adminPageGuard, recogniseCustomersOnConsolePages } from './console/admin-pages.js';
import { withPageLanguage } from './console/language.js';
import { errorBackLink, errorPageData } from './console/layout.js';
import { missingAsNotFoundPage, pageNotFound } from './console/not-found-page.js';
import { createEventBus, type EventBus } from './events/event-bus.js';
import { inProcessQueue } from './events/in-process-queue.js';
import { exportsModule } from './exports/exports.module.js';
import { figureReads as figures } from './figure-reads.js';
import { jobsModule } from './jobs/jobs.module.js';
import { licenseFiles } from './licenses/license-file.js';
import { licenseReads } from './licenses/license-reads.js';
import { licensesModule } from './licenses/licenses.module.js';
import { createLicensesService } from './licenses/licenses.service.js';
import { adminMachinesModule, publicMachinesModule } from './machines/machines.module.js';
import { createMachinesService, type MachinesService } from './machines/machines.service.js';
import { createOfflineFilesService } from './machines/offline-files.service.js';
import { notificationChannelsModule } from './notification-channels/notification-channels.module.js';
import type { TestEmailTiming } from './notification-channels/notification-channels.service.js';
import { notificationsModule } from './notifications/notifications.module.js';
import { applyPanicModeFromEnvironment, createPanicGuard, isPanicMode } from './panic/panic.js';
import { localesDir, viewsDir } from './paths.js';
import { productsModule } from './products/products.module.js';
import { createProductsService } from './products/products.service.js';
import { policiesModule } from './policies/policies.module.js';
import { createPoliciesService } from './policies/policies.service.js';
import { entitlementsModule } from './entitlements/entitlements.module.js';
import { createEntitlementsService } from './entitlements/entitlements.service.js';
import { createRateLimits } from './rate-limits/rate-limits.js';
import { runtimeConfigModule } from './runtime-config/runtime-config.module.js';
import { createRuntimeConfigService } from './runtime-config/runtime-config.service.js';
import type { LicenseSettings } from './runtime-config/runtime-config.schema.js';
import { stripeModule } from './stripe/stripe.module.js';
import { createSecretBox } from './two-factor/two-factor.crypto.js';
import { createTwoFactorGate } from './two-factor/two-factor.gate.js';
import { twoFactorModule, twoFactorServiceFrom } from './two-factor/two-factor.module.js';
import { signingKeysModule } from './signing/signing-keys.module.js';
import { createSigningKeysService } from './signing/signing-keys.service.js';
import { loadSigningKeys } from './signing/signing.js';
import { validationModule } from './validation/validation.module.js';
import { webhooksModule, type WebhookDeliveryDeps } from './webhooks/webhooks.module.js';

export type { WebhookDeliveryDeps };

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
  /** DNS for the SMTP hosts of notification channels (tests inject their own). */
  smtpLookup?: OutgoingLookup;
  /** How often an instance looks for a signing key rotated by another one (default 1 s). */
  signingKeyRefreshMs?: number;
  /** Where release artifacts keep their bytes (STORAGE_URL's store unless given). */
  store?: ObjectStore;
  /** How long a test email may take, and when it is answered (TEST_EMAIL_TIMING unless given). */
  testEmailTiming?: TestEmailTiming;
}

export interface LicenseApp {
  app: Express;
  /** The event bus the features publish on (tests listen to it). */
  events: EventBus;
  /** The licenses service (tests prepare licenses through it, with its rules and audit). */
  licenses: ReturnType<typeof createLicensesService>;
  /** The machines service (tests run its sweep). */
  machines: MachinesService;
  /** Validation analytics, sharing announcements and usage retention (tests run its scans). */
  analytics: AnalyticsService;
  /** Software releases (tests run the removal of deleted artifacts' objects and the orphan sweep). */
  releases: ReleasesService;
  /** The modules the app is built from: `startService` (a test, with `startModules`) starts their handlers and jobs. */
  modules: readonly FeatureModule[];
  /** Every route the app declares, as the OpenAPI document describes them; made at the first call. */
  openApiDocument(): Record<string, unknown>;
  /** Stops timers the app owns and the modules' jobs (not the database, queue or settings store: the caller's). */
  close(): Promise<void>;
}

/** Express's `trust proxy` from TRUST_PROXY (as commonMiddleware reads it). */
function trustProxyValue(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}

const sessionSecretOf = (config: Config) => config.SESSION_SECRET ?? 'development-only-license-session-secret';

export async function createApp(deps: AppDeps): Promise<LicenseApp> {
  const { config, database, logger, settings } = deps;
  const pool = database.pool;
  const now = deps.now ?? (() => new Date());
  const events = deps.events ?? createEventBus(logger);
  const queue = deps.jobs ?? inProcessQueue(logger);

  // What several features share: the people, the guards, the limits, the signing key.
  const admins = createAdminsService({ pool, now });
  await admins.register(config.ADMIN_IDS);
  await applyPanicModeFromEnvironment(settings, config.PANIC_MODE);
  // The signing key is sealed under a key of its own, derived from SESSION_SECRET; loading it
  // seals a key an older version stored in clear (this runs after the migrations).
  const signingKeyBox = createSecretBox(sessionSecretOf(config), 'signing-key');
  const keyring = await loadSigningKeys({
    db: pool,
    box: signingKeyBox,
    now,
    logger,
    refreshMs: deps.signingKeyRefreshMs,
  });
  const { signer } = keyring;
  const signingKeys = createSigningKeysService({ pool, now, box: signingKeyBox, keyring });
  const jwt = createJwtService({
    secret: config.JWT_SECRET,
    publicKey: config.JWT_PUBLIC_KEY,
    privateKey: config.JWT_PRIVATE_KEY,
    ttlSeconds: config.JWT_TTL_SECONDS,
  });
  const sessionActor = (req: Request) => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });
  const rateLimits = createRateLimits({ config, settings, jwt, redis: deps.redis });
  const auth = createAuth({
    pool,
    sessionSecret: sessionSecretOf(config),
    sessionTtlMs: config.SESSION_TTL_HOURS * 3_600_000,
    secureCookies: config.NODE_ENV === 'production' || deps.publicUrl.startsWith('https:'),
    cookieName: 'license.sid',
    sessionTable: sessionTableName,
    publicUrl: deps.publicUrl,
    oauth: deps.oauth,
    trustsProxy: trustsAProxy(config.TRUST_PROXY),
    sessionStartLimiter: rateLimits.sessionStartLimit,
    warn: (message) => logger.warn(message),
    onSignIn: (user: SessionUser, req: Request) => admins.recordSession('login', user, sessionActor(req)),
    onSignOut: (user: SessionUser, req: Request) => admins.recordSession('logout', user, sessionActor(req)),
  });
  // Each feature's service is built once, here, and handed to every module that reads through it.
  const customers = createCustomersService({ pool, licenses: licenseReads });
  const products = createProductsService({ pool, now, licenses: licenseReads });
  const policies = createPoliciesService({ pool });
  const entitlements = createEntitlementsService({ pool });
  const audit = createAuditService({ pool });
  const licenses = createLicensesService({ pool, events, now });
  const machines = createMachinesService({ pool, events, now });
  // Offline license files are signed with the key that signs validation answers.
  const files = licenseFiles({ signer, now, validDays: config.OFFLINE_FILE_DAYS });
  const offline = createOfflineFilesService({ pool, now, files, machines });
  const twoFactor = twoFactorServiceFrom({ config, pool, now, sessionSecret: sessionSecretOf(config) });
  const guards = createGuards({
    pool,
    jwt,
    twoFactorGate: createTwoFactorGate(twoFactor),
    findCustomer: customers.findByUserId,
  });
  const panicGuard = createPanicGuard(settings);
  const { admin, customer } = guards;
  // The console's pages answer a failed admin check as a page (sign-in, no access) instead of JSON.
  const adminPage = adminPageGuard(admin);
  const adminTokens = createAdminTokenService({ pool, jwt, now });
  const runtimeConfig = createRuntimeConfigService({
    pool,
    settings,
    effectiveRateLimit: rateLimits.effectivePublicLimit,
  });

  // The channels an admin configures in the console (the environment's until saved), read at each send.
  const notificationChannels = await notificationChannelsModule({
    config,
    pool,
    now,
    logger,
    admin,
    adminPage,
    csrfToken: auth.csrfToken,
    lookup: deps.smtpLookup,
    testEmailTiming: deps.testEmailTiming,
  });
  const notifications = notificationsModule({ config, queue, logger, events, channels: notificationChannels.channels });
  const { notifier } = notifications;
  const webhooks = webhooksModule({
    config,
    pool,
    logger,
    now,
    events,
    delivery: deps.webhookDelivery,
    admin,
    adminPage,
    csrfToken: auth.csrfToken,
    sessionSecret: sessionSecretOf(config),
  });
  const automations = automationsModule({
    pool,
    now,
    events,
    notifier,
    webhooks: webhooks.dispatcher,
    logger,
    licenses,
    queue,
    products,
    checkWebhookUrl: webhooks.checkUrl,
    admin,
    adminPage,
    csrfToken: auth.csrfToken,
  });

  // Software releases: artifacts on the object store (STORAGE_URL), offered to licenses that cover them.
  const store = deps.store ?? objectStoreOf(config, deps.publicUrl, sessionSecretOf(config));
  // The console uploads artifacts from the browser straight to the store's URLs: on S3 that is
  // another origin, which the Content-Security-Policy must let scripts reach (a presigned URL is
  // made locally, so this asks the store nothing).
  const storeOrigin = new URL((await store.uploadUrl('origin-probe', { size: 1 })).url).origin;
  const distribution = distributionModules({
    pool,
    now,
    events,
    store,
    publicUrl: deps.publicUrl,
    secret: sessionSecretOf(config),
    signer,
    logger,
    // As the scheduled scans: only a real queue runs jobs once across instances.
    queue: deps.jobs,
    product: (productId) => products.get(productId, false),
    admin,
    adminPage,
    csrfToken: auth.csrfToken,
    public: guards.public,
    panicGuard,
    limiter: rateLimits.publicLimit,
  });

  const analytics = analyticsModule({
    reads: database.reads,
    db: pool,
    mode: database.mode,
    retentionDays: config.USAGE_RETENTION_DAYS,
    now,
    licenses,
    products,
    admin,
    logger,
    background: deps.jobs !== undefined,
  });

  const customerPortal = customerPortalModule({
    pool,
    now,
    customer,
    panicGuard,
    panicMode: () => isPanicMode(settings),
    licenses,
    machines,
    offline,
    csrfToken: auth.csrfToken,
    releasesPerDay: config.CUSTOMER_RELEASES_PER_DAY,
    downloads: (customerId) => distribution.service.downloadsForCustomer(customerId),
  });

  // In the order they are mounted within their stage, and subscribed to the bus.
  const modules: FeatureModule[] = [
    stripeModule({
      config,
      pool,
      now,
      events,
      licenses,
      triggers: automations.triggers,
      notifier,
      logger,
      public: guards.public,
      panicGuard,
    }),
    validationModule({
      pool,
      now,
      events,
      signer,
      logger,
      public: guards.public,
      panicGuard,
      limiter: rateLimits.publicLimit,
    }),
    distribution.hot,
    publicMachinesModule({
      machines,
      offline,
      signer,
      now,
      logger,
      public: guards.public,
      panicGuard,
      limiter: rateLimits.publicLimit,
      sweep: deps.jobs !== undefined,
    }),
    adminTokenModule({ service: adminTokens, admin }),
    signingKeysModule({ service: signingKeys, keyring, admin }),
    runtimeConfigModule({ service: runtimeConfig, admin }),
    productsModule({ pool, service: products, admin, adminPage, csrfToken: auth.csrfToken }),
    policiesModule({ pool, service: policies, products, entitlements, admin, adminPage, csrfToken: auth.csrfToken }),
    entitlementsModule({ pool, service: entitlements, admin, adminPage, csrfToken: auth.csrfToken }),
    customersModule({ pool, service: customers, admin, adminPage, csrfToken: auth.csrfToken }),
    licensesModule({ service: licenses, admin }),
    distribution.admin,
    analytics,
    adminMachinesModule({ machines, offline, admin }),
    customerPortal,
    adminLicensesModule({
      pool,
      now,
      licenses,
      machines,
      offline,
      products,
      customers,
      policies,
      entitlements,
      audit,
      admin,
      adminPage,
      csrfToken: auth.csrfToken,
    }),
    auditModule({ service: audit, admin, adminPage }),
    adminSettingsModule({
      pool,
      now,
      runtimeConfig,
      admins,
      tokens: adminTokens,
      twoFactor,
      signingKeys,
      admin,
      adminPage,
      csrfToken: auth.csrfToken,
    }),
    twoFactorModule({ service: twoFactor, adminWithoutTwoFactor: guards.adminWithoutTwoFactor, notifier }),
    exportsModule({
      config,
      pool,
      reads: database.reads,
      now,
      products,
      customers,
      summaryReads: figures,
      admin,
      adminPage,
    }),
    // Before the webhooks module: /webhooks/channels is not a webhook endpoint's id.
    notificationChannels,
    webhooks,
    notifications,
    automations,
    jobsModule({ config, pool, now, events, licenses, notifier, logger, queue: deps.jobs }),
  ];
  // The API description, made from the same declarations that serve the routes, its own included.
  const apiDocs = openApiRoutes(() => openApiDocument());
  modules.push(
    { name: 'api-docs', routes: apiDocs.routes, routers: [apiDocs.assets] },
    dashboardModule({
      reads: database.reads,
      figures,
      settings,
      now,
      licenses,
      analytics: analytics.service,
      public: guards.public,
      admin,
      customerHome: customerPortal.home,
      isAdmin: admins.isAdmin,
      findCustomer: customers.findByUserId,
    }),
  );
  // The shared packages' routes (health, sign-in, CSRF token) are declarations too, so the document lists them.
  const health = healthRouteDeclarations(pool);
  // Made at the first request for it: turning every schema into JSON Schema costs a third of a
  // second of start-up that most starts never need.
  let document: Record<string, unknown> | undefined;
  const openApiDocument = () =>
    (document ??= createOpenApiDocument(
      [...health, ...auth.routeDeclarations, ...modules.flatMap((module) => module.routes)],
      {
        info: {
          title: 'License Service',
          version: '1.0.0',
          description: 'License validation, administration and the customer portal.',
        },
        securitySchemes,
      },
    ));

  const app = express();
  // Pages are EJS views with the UI kit's partials; routes pass plain data to res.render.
  const views = createViews({ folders: [viewsDir], appLocalesDir: localesDir });
  useViews(app, views);
  recogniseCustomersOnConsolePages(app, customers.findByUserId);
  app.set('etag', false);
  // Set here as well as in commonMiddleware: the routes mounted before it read req.ip too.
  app.set('trust proxy', trustProxyValue(config.TRUST_PROXY));
  // Tests hold every JSON answer to the schema its route declares (the API description). A
  // page's refusal of a missing thing is the not-found page; a refused admin write answered in
  // the route pipeline is audited as the error handlers audit the rest.
  const mountOptions: MountOptions = {
    checkResponses: config.NODE_ENV === 'test',
    refusals: { page: missingAsNotFoundPage },
    onRefusal: (error, req, res) => recordFailedAdminWrite(pool, req, res, error),
  };

  app.use(mountRoutes(health));
  mountStage(app, modules, 'rawBody', mountOptions);
  mountStage(app, modules, 'hotPath', mountOptions);
  // Everything after the hot path answers in the visitor's language (the pages; the API stays
  // English), and /language is the footer switcher's; the validation path above skips the work.
  app.use(languages({ appLocalesDir: localesDir }), withPageLanguage);
  commonMiddleware(app, {
    logger,
    bodyLimit: '1mb',
    trustProxy: config.TRUST_PROXY,
    ...(storeOrigin === new URL(deps.publicUrl).origin
      ? {}
      : { contentSecurityPolicy: { 'connect-src': ["'self'", storeOrigin] } }),
    readYourWrites: readYourWrites({
      onPrimary: database.reads.onPrimary,
      hasSession: (req) => req.headers.cookie?.includes('license.sid=') === true,
    }),
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
  mountStage(app, modules, 'app', mountOptions);

  app.use(apiNotFound);
  app.use(pageNotFound);
  app.use(auditFailedAdminWrites(pool, logger));
  app.use(
    createErrorHandler({
      successFlag: true,
      logger,
      // Panic mode refuses every public request: one info line each at most, never an error.
      refusalCodes: ['PANIC_MODE'],
      // A browser navigation (a download link, sign-in) gets a page with a way back; programs, JSON.
      renderHtml: (req, status, message, answer) =>
        wantsHtmlErrorPage(req)
          ? views.render('errors/error', {
              // The request's language (languages() set it), else the views' English.
              ...req.res?.locals,
              ...errorPageData({
                status,
                message,
                details: answer.details,
                extra: answer.extra,
                username: req.user?.username,
                back: errorBackLink(req.path, backLinkOf(req)),
              }),
            })
          : undefined,
    }),
  );

  return {
    app,
    events,
    licenses,
    machines,
    analytics: analytics.service,
    releases: distribution.service,
    modules,
    openApiDocument,
    async close() {
      rateLimits.close();
      await closeModules(modules);
      await auth.close();
    },
  };
}
