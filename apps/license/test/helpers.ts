import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import supertest from 'supertest';
import { csrfTokenFor, signInAs } from '@app/auth/testing';
import { loadConfig, type Config } from '@app/config';
import type { Database } from '@app/db';
import { createTestDatabase } from '@app/db/testing';
import { startDevIdp, type DevIdp } from '@app/dev-idp';
import type { JobQueue, OutgoingLookup } from '@app/events';
import { createLogger, startModules, type Logger } from '@app/http';
import type { Redis } from '@app/rate-limit';
import { createSettingsStore, type SettingsStore } from '@app/settings';
import { createApp, type LicenseApp, type WebhookDeliveryDeps } from '../src/app.js';
import type { Actor } from '../src/common/actor.js';
import type { EventBus } from '../src/events/event-bus.js';
import { customerJson } from '../src/customers/customers.presenter.js';
import { insertCustomer } from '../src/customers/customers.repository.js';
import { createLicenseSchema, type CreateLicense } from '../src/licenses/licenses.schema.js';
import { productJson } from '../src/products/products.presenter.js';
import { insertProduct } from '../src/products/products.repository.js';
import {
  licenseSettingsNamespace,
  licenseSettingsSchema,
  type LicenseSettings,
} from '../src/runtime-config/runtime-config.schema.js';
import { settingsTableName } from '../src/runtime-config/settings.table.js';
import type { TestEmailTiming } from '../src/notification-channels/notification-channels.service.js';

export const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle');
/** The admin every test app registers through ADMIN_IDS. */
export const testAdminId = 'admin';
export const systemActor: Actor = { userId: 'test', ip: null, userAgent: 'vitest' };

export interface Session {
  cookie: string;
  csrfToken: string;
  /** Headers of a session-authenticated write: cookie and CSRF token. */
  headers: { Cookie: string; 'X-CSRF-Token': string };
}

/** What tests reach inside the app: the event bus and the licenses service. */
export interface TestContext {
  events: EventBus;
  services: {
    licenses: LicenseApp['licenses'];
    machines: LicenseApp['machines'];
    analytics: LicenseApp['analytics'];
    releases: LicenseApp['releases'];
  };
}

export interface TestApp {
  app: Express;
  context: TestContext;
  config: Config;
  database: Database;
  settings: SettingsStore<LicenseSettings>;
  baseUrl: string;
  /** supertest against the listening server. */
  http: ReturnType<typeof supertest>;
  /** Every declared route as the OpenAPI document lists them, the internal pages included (GET /openapi.json leaves those out). */
  openApiDocument: LicenseApp['openApiDocument'];
  /** Signs `userId` in through the dev identity provider; returns the cookie and its CSRF token. */
  signIn(userId: string): Promise<Session>;
  /** The registered test admin's session. */
  admin(): Promise<Session>;
  /** A new customer who signs in with `userId` (default: a fresh id), and their session. */
  customer(
    overrides?: Partial<{ name: string; email: string; userId: string }>,
  ): Promise<{ customer: { _id: string; userId: string | null }; session: Session }>;
  createProduct(
    overrides?: Partial<{ name: string; description: string; isActive: boolean; licensePrefix: string }>,
  ): Promise<{ _id: string; name: string; licensePrefix: string }>;
  createCustomer(
    overrides?: Partial<{ name: string; email: string; userId: string }>,
  ): Promise<{ _id: string; name: string; email: string; userId: string | null }>;
  /** Creates a license; a product is created when neither a product nor a policy is given. Returns the admin JSON. */
  createLicense(
    input?: Partial<Omit<CreateLicense, 'expiresAt'>> & { expiresAt?: Date | string | null },
  ): Promise<Awaited<ReturnType<LicenseApp['licenses']['create']>>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Build the app without an identity provider (sign-in answers 503 naming what to set). */
  withoutSignIn?: boolean;
  /** Environment variables over the test defaults (e.g. RATE_LIMIT_MAX, JWT_SECRET). */
  env?: Record<string, string>;
  now?: () => Date;
  events?: EventBus;
  jobs?: JobQueue;
  /** DNS, HTTP out, retry schedule and polling of webhook delivery (tests compress the schedule). */
  webhookDelivery?: WebhookDeliveryDeps;
  /** DNS for the SMTP hosts of notification channels. */
  smtpLookup?: OutgoingLookup;
  /** A test email's pace; short by default here (TEST_EMAIL_TIMING's 5 s in the service). */
  testEmailTiming?: TestEmailTiming;
  /** Reuse a database (e.g. a second instance on the same data); the caller closes it. */
  database?: Database;
  /** Rate-limit counts in Redis (see testRateLimitStore); in memory without it. */
  redis?: Redis;
  /** The app's logger (silent by default); log tests pass one that writes to a capture. */
  logger?: Logger;
}

let sequence = 0;

/**
 * The license app on a fresh test database (PGlite, or PostgreSQL with TEST_DATABASE_URL),
 * listening on port 0 with a dev identity provider, so tests sign in over real HTTP.
 */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(migrationsFolder));
  const idp: DevIdp = await startDevIdp({ port: 0 });
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ADMIN_IDS: testAdminId,
    RATE_LIMIT_MAX: '100000',
    SESSION_START_LIMIT: '100000',
    ...options.env,
  });
  const settings = await createSettingsStore({
    pool: database.pool,
    table: settingsTableName,
    namespace: licenseSettingsNamespace,
    schema: licenseSettingsSchema,
    refreshMs: 200,
  });
  const built = await createApp({
    config,
    database,
    settings,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    oauth: options.withoutSignIn ? undefined : idp.oauth,
    publicUrl: baseUrl,
    now: options.now,
    events: options.events,
    jobs: options.jobs,
    redis: options.redis,
    webhookDelivery: options.webhookDelivery,
    smtpLookup: options.smtpLookup,
    testEmailTiming: options.testEmailTiming ?? { timeoutMs: 2_000, answerAfterMs: 2_500 },
  });
  // As startService does: the modules' event handlers subscribed and their jobs started.
  await startModules(built.modules);
  server.on('request', built.app);
  const context: TestContext = {
    events: built.events,
    services: {
      licenses: built.licenses,
      machines: built.machines,
      analytics: built.analytics,
      releases: built.releases,
    },
  };

  const signIn = async (userId: string): Promise<Session> => {
    const cookie = await signInAs(baseUrl, userId);
    const csrfToken = await csrfTokenFor(baseUrl, cookie);
    return { cookie, csrfToken, headers: { Cookie: cookie, 'X-CSRF-Token': csrfToken } };
  };
  let adminSession: Session | undefined;

  const createProduct: TestApp['createProduct'] = async (overrides = {}) => {
    sequence += 1;
    return productJson(
      await insertProduct(database.pool, {
        name: overrides.name ?? `Product ${sequence}`,
        description: overrides.description ?? 'A test product',
        isActive: overrides.isActive ?? true,
        licensePrefix: overrides.licensePrefix ?? 'TEST',
      }),
    );
  };
  const createCustomer: TestApp['createCustomer'] = async (overrides = {}) => {
    sequence += 1;
    return customerJson(
      await insertCustomer(database.pool, {
        name: overrides.name ?? `Customer ${sequence}`,
        email: overrides.email ?? `customer${sequence}@example.com`,
        userId: overrides.userId,
      }),
    );
  };

  return {
    app: built.app,
    openApiDocument: () => built.openApiDocument(),
    context,
    config,
    database,
    settings,
    baseUrl,
    http: supertest(baseUrl),
    signIn,
    async admin() {
      adminSession ??= await signIn(testAdminId);
      return adminSession;
    },
    async customer(overrides = {}) {
      sequence += 1;
      const customer = await createCustomer({ userId: `customer-${process.pid}-${sequence}`, ...overrides });
      return { customer, session: await signIn(customer.userId!) };
    },
    createProduct,
    createCustomer,
    async createLicense(input = {}) {
      // A license made from a policy is of the policy's product.
      const product = input.product ?? (input.policyId ? undefined : (await createProduct())._id);
      const expiresAt = input.expiresAt instanceof Date ? input.expiresAt.toISOString() : input.expiresAt;
      const parsed = createLicenseSchema.parse({
        ...input,
        product,
        ...(expiresAt !== undefined ? { expiresAt } : {}),
      });
      return context.services.licenses.create(systemActor, parsed);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await built.close();
      await settings.close();
      await idp.stop();
      if (!options.database) await database.close();
    },
  };
}
